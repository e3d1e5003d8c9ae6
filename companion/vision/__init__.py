"""Camera recognition of the board: markers, cells, workers, stability, synthetic frames."""
