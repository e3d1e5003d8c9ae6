"""Café scale: every table publishes to one MQTT broker, and one hub shows the whole room."""
