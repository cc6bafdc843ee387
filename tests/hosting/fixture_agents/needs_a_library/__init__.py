# Needs a third-party library that is not installed: no "old name" hint.
import a_package_nobody_installed  # noqa: F401
