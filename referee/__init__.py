"""referee: refereeing and tournaments for two-player AI games."""
__version__ = "0.1.0"
