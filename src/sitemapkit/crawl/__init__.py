"""The polite, trap-proof, resumable crawler."""
