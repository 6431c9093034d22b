"""Paraphrase tables: Moses phrase tables, Parex-style pivoting, phrase tables from bitexts."""
