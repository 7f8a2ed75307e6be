"""Layer 9: the command-line tools tinytf, tinytf-opt and tinytf-translate."""
