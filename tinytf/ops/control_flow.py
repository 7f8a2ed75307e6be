"""Functional control flow: If, StatelessIf, While (branches and bodies are functions in the module)."""
