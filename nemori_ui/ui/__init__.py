"""The Streamlit UI: the only part of the product that imports streamlit."""
