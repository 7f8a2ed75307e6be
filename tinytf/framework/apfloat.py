"""Floats as MLIR prints them: LLVM's ``APFloat::toString`` digit for digit.

    >>> mlir_float_text(8.0, 24)              # f32
    '8.000000e+00'
    >>> mlir_float_text(0.007048109546303749, 24)
    '0.00704810954'
    >>> mlir_float_text(float(np.float32(0.01)), 24)   # its %e, cut to 9.999990e-03, reads back wrong
    '0.00999999977'

MLIR prints ``%e`` with 6 digits when that reads back to the same value, else APFloat's shortest
"natural" form (9 digits for f32, 17 for f64), else ``None`` here: the caller prints the bit pattern
in hex. APFloat cuts digits by dividing its exact decimal significand, then rounds half up on the
first dropped digit, so it can differ from Python's correctly rounded ``f"{x:.9g}"`` in the last
digit (``0.00704810954`` where Python writes ``0.00704810955``).
"""
from __future__ import annotations

from fractions import Fraction

# element type -> (significand bits incl. the implicit one, minimum normal exponent)
SEMANTICS = {"f16": (11, -14), "bf16": (8, -126), "f32": (24, -126), "f64": (53, -1022),
             "f80": (64, -16382), "f128": (113, -16382)}


def _digits(value: float, precision: int) -> tuple[str, int]:
    """(decimal digits, most significant first, exponent) of |value| cut to ``precision`` digits as
    APFloat's toString does; ``value`` is finite and not zero."""
    numerator, denominator = Fraction(abs(value)).as_integer_ratio()
    exp = -(denominator.bit_length() - 1)  # the denominator is a power of two
    significand = numerator
    trailing = (significand & -significand).bit_length() - 1
    significand >>= trailing
    exp += trailing
    if exp > 0:
        significand <<= exp
        exp = 0
    elif exp < 0:  # N * 2^-e == N * 5^e * 10^-e
        significand *= 5 ** -exp
    # AdjustToPrecision on the integer: drop whole tens by division (truncating)
    bits = significand.bit_length()
    required = (precision * 196 + 58) // 59
    if bits > required:
        removable = (bits - required) * 59 // 196
        if removable:
            exp += removable
            significand //= 10 ** removable
    text = str(significand)
    stripped = text.rstrip("0")
    exp += len(text) - len(stripped)
    buffer = stripped
    # AdjustToPrecision on the digits: round half up on the first dropped digit
    if len(buffer) > precision:
        keep, dropped = buffer[:precision], buffer[precision]
        exp += len(buffer) - precision
        if dropped >= "5":
            rounded = str(int(keep) + 1)
            if len(rounded) > len(keep):  # carried through: 999 -> 1000
                exp += len(rounded) - 1
                rounded = "1"
            keep = rounded
        stripped = keep.rstrip("0")
        exp += len(keep) - len(stripped)
        buffer = stripped
    return buffer, exp


def to_string(value: float, bits: int, format_precision: int = 0, max_padding: int = 3,
              truncate_zero: bool = True) -> str:
    """``APFloat::toString(str, format_precision, max_padding, truncate_zero)`` for a finite value of
    a format with ``bits`` significand bits."""
    negative = str(value).startswith("-")
    sign = "-" if negative else ""
    if value == 0:
        if not max_padding:
            return sign + ("0.0E+0" if truncate_zero else "0.0" + "0" * max(format_precision - 1, 0) + "e+00")
        return sign + "0"
    precision = format_precision or 2 + bits * 59 // 196
    digits, exp = _digits(value, precision)
    count = len(digits)
    if not max_padding:
        scientific = True
    elif exp >= 0:
        scientific = exp > max_padding or count + exp > precision
    else:
        msd = exp + count - 1
        scientific = msd < 0 and -msd > max_padding
    if scientific:
        exp += count - 1
        mantissa = digits[0] + "." + (digits[1:] or ("0" if truncate_zero else ""))
        if not truncate_zero and precision > count - 1:
            mantissa += "0" * (precision - count + 1)
        exponent = str(abs(exp)).rjust(1 if truncate_zero else 2, "0")
        return f"{sign}{mantissa}{'E' if truncate_zero else 'e'}{'+' if exp >= 0 else '-'}{exponent}"
    if exp >= 0:
        return sign + digits + "0" * exp
    whole = exp + count
    if whole > 0:
        return f"{sign}{digits[:whole]}.{digits[whole:]}"
    return f"{sign}0.{'0' * -whole}{digits}"


def _round_to_format(exact: Fraction, bits: int, emin: int) -> Fraction:
    """The value of the format (``bits`` significand bits, minimum exponent ``emin``) nearest to
    ``exact``, ties to even, as APFloat reads a decimal string."""
    if exact == 0:
        return exact
    magnitude = abs(exact)
    e = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if Fraction(2) ** e > magnitude:
        e -= 1
    scale = bits - 1 - max(e, emin)
    scaled = magnitude * Fraction(2) ** scale
    m = round(scaled)  # Python rounds Fractions half to even
    result = Fraction(m) / Fraction(2) ** scale
    return result if exact > 0 else -result


def mlir_float_text(value: float, bits: int, emin: int = -126) -> str | None:
    """The text MLIR prints for a finite float of a format with ``bits`` significand bits, or ``None``
    when MLIR prints the bit pattern in hex instead."""
    text = to_string(value, bits, format_precision=6, max_padding=0, truncate_zero=False)
    if _round_to_format(Fraction(text.lower()), bits, emin) == Fraction(value):
        return text
    text = to_string(value, bits)
    return text if "." in text else None
