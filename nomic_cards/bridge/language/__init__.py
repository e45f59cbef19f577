"""The dealer scripting language: tokens, grammar, the parser and the syntax tree.

Nothing is imported here: each module is imported where it is used.
"""
