"""courtbench.textio: the strict UTF-8 and CSV reading every source reader shares."""

from __future__ import annotations

import io

import pytest

from courtbench.errors import SourceError
from courtbench.textio import decode_utf8, strict_csv


def test_bom_is_dropped():
    assert decode_utf8("f.csv", "\ufeffa,b\n".encode()) == "a,b\n"


@pytest.mark.parametrize("data, line", [(b"\xff", 1), (b"a\nb\n\xff", 3), (b"a\r\nb\r\xff", 3)])
def test_invalid_byte_line_counts_lf_crlf_and_cr(data, line):
    with pytest.raises(SourceError) as error:
        decode_utf8("f.csv", data, expected="CSV file")
    assert error.value.line == line and "byte 0xff" in str(error.value)
    assert "expected a UTF-8 CSV file" in str(error.value)


def _csv(text: str, **options):
    header, records = strict_csv("f.csv", io.StringIO(text, newline=""), **options)
    return header, list(records)


def test_records_carry_the_line_they_start_on():
    assert _csv('a,b\n1,"two\nlines"\n3,4\n') == (["a", "b"], [(2, ["1", "two\nlines"]),
                                                              (4, ["3", "4"])])


def test_blank_lines_are_rows_unless_skipped():
    with pytest.raises(SourceError, match="line 2: row has 0 fields, expected 2"):
        _csv("a,b\n\n1,2\n")
    assert _csv("a,b\n\n1,2\n", skip_blank=True) == (["a", "b"], [(3, ["1", "2"])])


def test_empty_file_is_an_error_unless_allowed():
    with pytest.raises(SourceError, match="line 1: file is empty; expected a header row"):
        _csv("")
    assert _csv("", allow_empty=True) == ([], [])


def test_bad_quoting_names_the_line():
    with pytest.raises(SourceError, match=r"line 3: malformed CSV .*RFC 4180"):
        _csv('a,b\n1,2\n3,"x"y\n')
