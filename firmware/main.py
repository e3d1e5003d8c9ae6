"""Pico entry point: the LED link over USB serial (also runs on MicroPython's unix port).

Bytes arrive on stdin, replies leave on stdout, exactly as the Pico's USB CDC port
presents them. Ctrl-C is disabled because 0x03 is an ordinary byte inside frames.
"""

import select
import sys

import ledconfig
import leddevice
import ledstrip

READ_CHUNK = 128


def run() -> None:
    try:
        import micropython

        micropython.kbd_intr(-1)
    except (ImportError, AttributeError):
        pass
    strip = ledstrip.make_strip(ledconfig.LED_COUNT, ledconfig.DATA_PIN)
    device = leddevice.Device(strip, leddevice.ticks_ms())
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    while True:
        chunk = b""
        while len(chunk) < READ_CHUNK and poller.poll(0 if chunk else 10):
            byte = stdin.read(1)
            if not byte:
                return  # the host end is gone for good (unix port only)
            chunk += byte
        reply = device.feed(chunk, leddevice.ticks_ms())
        if reply:
            stdout.write(reply)


if __name__ == "__main__":
    run()
