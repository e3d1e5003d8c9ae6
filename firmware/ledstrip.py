"""The LED chain behind one small interface: a real WS2812B strand or a fake in memory.

The device logic only calls ``write(pixels)``; which strip it gets is decided once, by
``make_strip``, from what the interpreter offers.
"""


class FakeStrip:
    """Remembers the last pixels written; used by the emulator and the unix port."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.pixels = [(0, 0, 0)] * count
        self.writes = 0

    def write(self, pixels: list) -> None:
        self.pixels = list(pixels)
        self.writes += 1


class NeoPixelStrip:
    """One WS2812B chain on a Pico pin through MicroPython's ``neopixel`` driver."""

    def __init__(self, count: int, pin: int) -> None:
        import machine
        import neopixel

        self.count = count
        self._np = neopixel.NeoPixel(machine.Pin(pin, machine.Pin.OUT), count)

    def write(self, pixels: list) -> None:
        np = self._np
        for i in range(self.count):
            np[i] = pixels[i]
        np.write()


def make_strip(count: int, pin: int):
    """The real strand where ``neopixel`` exists (a Pico), else a fake one."""
    try:
        import neopixel  # noqa: F401
    except ImportError:
        return FakeStrip(count)
    return NeoPixelStrip(count, pin)
