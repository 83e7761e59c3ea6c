"""The command line (thin): parses options, calls the rules packages, renders results."""
