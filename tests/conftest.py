from tests.openai_server import openai_server  # noqa: F401
