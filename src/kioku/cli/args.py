

def positive_int(text: str) -> int:
    """argparse type: a whole number of at least 1 (``--limit 0`` would silently find nothing)."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value
