"""The UI-free core. Nothing under this package may import streamlit."""
