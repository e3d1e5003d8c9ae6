"""The live table: the session that judges stable readings, its game log and update hub."""
