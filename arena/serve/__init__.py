"""The local web app: results folders served, games watched live, a person playing an engine."""
