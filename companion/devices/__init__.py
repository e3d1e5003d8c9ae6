"""Table hardware other than the camera and the LED link: the players' buttons."""
