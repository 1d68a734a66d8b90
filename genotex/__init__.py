"""GenoTEX applications."""
