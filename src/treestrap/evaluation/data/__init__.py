"""Weight files shipped with the package (the ``learned`` preset)."""
