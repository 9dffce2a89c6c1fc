"""Number words are read (issue 30, a founder's decision): "twenty seconds" is 20 s, "a dozen" is 12. Each
expected value below is worked out by hand from the words; the property spells integers with a speller of its
own, independent of the reader's."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.core.quantity_text import LineReading, ParsedQuantity, ParseFailure, parse_quantity, read_on_line


def read(text: str) -> ParsedQuantity:
    found = parse_quantity(text)
    assert isinstance(found, ParsedQuantity), found
    return found


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("twenty seconds", 20, "seconds"),
        ("a dozen", 12, None),
        ("two hundred", 200, None),
        ("twelve", 12, None),
        ("four", 4, None),
        ("zero", 0, None),
        ("twenty-four", 24, None),
        ("ninety nine", 99, None),
        ("one and a half", 1.5, None),
        ("three quarters", 0.75, None),
        ("a half", 0.5, None),
        ("2 dozen", 24, None),
        ("half a dozen", 6, None),  # 12 / 2
        ("half a million", 500_000, None),
        ("two million three thousand", 2_003_000, None),
        ("three thousand five hundred requests", 3500, "requests"),
        ("two hundred and fifty six", 256, None),
        ("a hundred and twenty ms", 0.120, "ms"),  # 120 ms in seconds
        ("half a minute", 30, "minute"),  # 0.5 × 60 s
        ("a minute", 60, "minute"),
        ("an hour and a half", 5400, "hour"),  # 1.5 × 3,600 s
        ("three quarters of an hour", 2700, "hour"),  # 0.75 × 3,600 s
        ("2 and a half hours", 9000, "hours"),  # 2.5 × 3,600 s
        ("a million tok/s", 1e6, "tok/s"),
        ("~ four hundred GB", 400e9, "GB"),  # bytes
        ("one-and-a-half hours", 5400, "hours"),  # 1.5 × 3,600 s
        ("two-hundred GB", 200e9, "GB"),
        ("three-quarters", 0.75, None),
        ("one sixth", 1 / 6, None),
        ("a third", 1 / 3, None),
        ("two thirds", 2 / 3, None),
        ("an eighth", 0.125, None),
        ("twelve.", 12, None),
        ("a hundred percent", 1.0, "percent"),  # 100 %
    ],
)
def test_a_number_in_words_reads_as_its_digits(text, value, unit):
    found = read(text)
    assert found.base_value == pytest.approx(value)
    assert found.unit == unit
    assert found.note.startswith(f"{text!r} read as ")


@pytest.mark.parametrize(
    ("text", "value", "note"),
    [
        ("about twenty seconds", 20, "approximate"),
        ("twenty seconds.", 20, "'twenty seconds.' read as '20 seconds.'"),
        ("twenty seconds at p95", 20, "'at p95' read as a note"),
        ("TTFT: twenty ms", 0.020, "'TTFT' read as a label"),
        ("two to three seconds", 2.5, "the range 2 to 3 seconds read as its midpoint"),  # (2 + 3) / 2
        ("twenty-thirty s", 25, "the range 20 to 30 s read as its midpoint"),  # (20 + 30) / 2
        ("four times five = twenty s", 20, "read the result after '='"),
        ("one in a thousand", 0.001, "the fraction 1 in 1,000 read as 0.001"),  # 1 / 1,000
    ],
)
def test_words_read_as_digits_keep_qualifiers_notes_labels_and_ranges(text, value, note):
    found = read(text)
    assert found.base_value == pytest.approx(value)
    assert note in found.note


@pytest.mark.parametrize(
    ("text", "unit", "label", "value"),
    [
        ("twenty seconds", "s", "", 20.0),
        ("half a minute", "s", "", 30.0),
        ("a day", "h", "", 86400.0),  # one day, in seconds: 24 h
        ("twelve", "", "", 12.0),
        ("$ two thousand a day", "USD/day", "", 2000 / 86400),  # "a day" after the number is per day
    ],
)
def test_a_number_in_words_on_a_line(text, unit, label, value):
    reading = read_on_line(text, unit, label)
    assert isinstance(reading, LineReading), reading
    assert reading.value == pytest.approx(value)


def test_a_count_noun_after_words_is_read_as_the_lines_count_and_the_note_says_what_was_typed():
    reading = read_on_line("twenty convs", "session")
    assert isinstance(reading, LineReading), reading
    assert reading.value == 20
    assert reading.note == "'twenty convs' read as '20 convs'; 'convs' read as session"


@pytest.mark.parametrize(
    ("text", "value", "note"),
    [
        # Words after the answer are notes and qualifiers, as before: never a second number.
        ("$1,080 a day", 1080 / 86400, ""),  # per day, not $1,080 and 1 day
        ("8 nodes (one replica per node)", 8, "'(one replica per node)' read as a note"),
        ("8 nodes, one per rack", 8, "', one per rack' read as a note"),
        ("40 ms each", 0.040, "'each' read as the line's own figure"),
    ],
)
def test_words_that_are_not_the_answer_are_not_read_as_numbers(text, value, note):
    found = read(text)
    assert found.base_value == pytest.approx(value)
    assert found.note == note


@pytest.mark.parametrize(
    "text",
    [
        "a few",
        "a few seconds",
        "lots",
        "a lot",
        "a couple",
        "a couple of GPUs",
        "a bit",
        "hundreds of GB",
        "many",
    ],
)
def test_a_vague_amount_is_no_number(text):
    found = parse_quantity(text)
    assert isinstance(found, ParseFailure) and found.kind == "unparsed"


def test_a_number_written_in_digits_reads_exactly_as_before():
    # The word reading runs only on text that does not read in digits: no note is added to these.
    for text in (
        "1.5 million",
        "2 million",
        "$1.296 million",
        "17.28 million GPU-hours",
        "10 million prompts",
    ):
        assert "read as '" not in read(text).note
    # Nor on a line whose counts are renamed ("lookups" as keys, the development set's fs-05).
    reading = read_on_line("1.01 million key lookups per second", "key/s")
    assert isinstance(reading, LineReading) and reading.value == pytest.approx(1.01e6)
    assert reading.note == "'lookups' read as key"


_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
]
_UNITS += ["sixteen", "seventeen", "eighteen", "nineteen"]
_TENS_WORDS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def spell_below_thousand(number: int, hyphen: bool, and_: bool) -> list[str]:
    hundreds, rest = divmod(number, 100)
    words = [_UNITS[hundreds], "hundred"] if hundreds else []
    if rest and hundreds and and_:
        words.append("and")
    if rest >= 20:
        tens, ones = divmod(rest, 10)
        if ones:
            words += [f"{_TENS_WORDS[tens]}-{_UNITS[ones]}"] if hyphen else [_TENS_WORDS[tens], _UNITS[ones]]
        else:
            words.append(_TENS_WORDS[tens])
    elif rest:
        words.append(_UNITS[rest])
    return words


def spell(number: int, hyphen: bool, and_: bool) -> str:
    if number == 0:
        return "zero"
    thousands, rest = divmod(number, 1000)
    words = [*spell_below_thousand(thousands, hyphen, and_), "thousand"] if thousands else []
    if rest:
        words += spell_below_thousand(rest, hyphen, and_)
    return " ".join(words)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=999_999), st.booleans(), st.booleans())
def test_any_integer_below_a_million_spelled_out_reads_back_as_itself(number, hyphen, and_):
    text = spell(number, hyphen, and_)
    found = parse_quantity(text)
    assert isinstance(found, ParsedQuantity), (text, found)
    assert found.dims is None and math.isclose(found.base_value, number, abs_tol=0), text
