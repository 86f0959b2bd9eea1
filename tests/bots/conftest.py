"""The adversarial bots are data for the sandbox tests, not test modules: never import them here."""
collect_ignore_glob = ["adversarial/*.py"]
