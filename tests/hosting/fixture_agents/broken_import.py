"""An agent module that cannot be imported."""
import a_module_that_does_not_exist  # noqa: F401


class Agent:
    pass
