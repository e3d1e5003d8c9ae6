"""Pure rules packages, one per game.  Nothing here touches serial, cv2, flask or GPIO."""
