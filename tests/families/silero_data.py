"""Inputs for Silero VAD's published models (tests/CMakeLists.txt, families.silero_vad_half): a
batch of 512-sample windows at 16 kHz of a voiced signal (a 120-180 Hz pulse train through two
formant resonators, with an amplitude envelope and noise), some of them silence, and the zero
recurrent state [2, batch, 128] a stream starts from. Written as the model takes them:
DIR/input.npy [8, 512] float32, DIR/state.npy [2, 8, 128] float32.

    python3 tests/families/silero_data.py DIR
"""
import os
import sys

import numpy as np


def resonate(x, freq, bandwidth, rate):
    """A two-pole resonator at freq (Hz) of the given bandwidth."""
    r = np.exp(-np.pi * bandwidth / rate)
    a1, a2 = -2 * r * np.cos(2 * np.pi * freq / rate), r * r
    y = np.zeros_like(x)
    for n in range(len(x)):
        y[n] = x[n] - a1 * (y[n - 1] if n else 0) - a2 * (y[n - 2] if n > 1 else 0)
    return y


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rate, window, count = 16000, 512, 8
    rng = np.random.default_rng(7)
    windows = []
    for w in range(count):
        if w % 4 == 3:  # silence: low noise
            windows.append(0.002 * rng.standard_normal(window))
            continue
        pitch = 120 + 15 * w
        pulses = np.zeros(window)
        pulses[:: rate // pitch] = 1.0
        voiced = resonate(resonate(pulses, 700 + 60 * w, 90, rate), 1200 + 80 * w, 120, rate)
        envelope = np.hanning(window) * 0.5 + 0.5
        x = voiced * envelope
        windows.append(0.3 * x / np.abs(x).max() + 0.003 * rng.standard_normal(window))
    np.save(os.path.join(out, "input.npy"), np.stack(windows).astype(np.float32))
    np.save(os.path.join(out, "state.npy"), np.zeros((2, count, 128), np.float32))


if __name__ == "__main__":
    main()
