"""What this particular LED board looks like: edit here, not in the logic.

The chain is one WS2812B strand: 16 vat LEDs, then 4 seat LEDs, 2 dice LEDs and the
status LED. The vat LEDs sit under the 4 x 4 vat grid of the reference Troia board,
wired as a serpentine (row 1 left to right, row 2 right to left, ...), so chain position
i lights the vat numbered VAT_NUMBERS[i].
"""

BOARD_ID = "companion-led-troia"
FIRMWARE_VERSION = (1, 0, 0)

DATA_PIN = 2  # GP2, through a 74AHCT125 level shifter; see hardware/wiring.md
VAT_NUMBERS = (13, 14, 15, 16, 5, 4, 3, 12, 11, 2, 1, 6, 7, 8, 9, 10)
SEAT_FIRST = 16  # seats 0-3 clockwise from the amphora's first holder
SEAT_COUNT = 4
DICE_FIRST = 20  # orange die, then purple die
STATUS_LED = 22
LED_COUNT = 23

HEARTBEAT_TIMEOUT_MS = 2000  # no valid frame for this long: drop state, show "disconnected"
PARTIAL_FRAME_TIMEOUT_MS = 50  # a frame left half-sent this long is noise
ROLL_STEP_MS = 90  # dice roll animation: one colour per step
BLINK_MS = 500  # disconnected pattern half period

BRIGHTNESS = 64  # of 255; 23 LEDs at this scale stay under 0.4 A (hardware/power.md)

# Colours at full scale (scaled by BRIGHTNESS when written).
GOLD = (255, 150, 0)
SEAT_WHITE = (255, 255, 255)
WAITING_BLUE = (0, 0, 255)
DISCONNECTED_RED = (255, 0, 0)
DICE_RGB = (
    (0, 0, 0),  # off
    (0, 255, 0),  # green
    (255, 0, 0),  # red
    (255, 200, 0),  # yellow
    (160, 0, 255),  # purple
    (255, 80, 0),  # orange
    (0, 80, 255),  # blue
    (255, 255, 255),  # white
)
STATUS_RGB = (
    (0, 0, 0),  # idle: unlit
    (0, 255, 0),  # ok
    (255, 120, 0),  # desync: amber
    (255, 0, 0),  # illegal
)
