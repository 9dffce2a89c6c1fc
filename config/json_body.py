"""Every JSON body is read here: its nesting depth is bounded before it is parsed, so a body nested thousands
deep is a 400 and one log line, never a RecursionError in the parser or in code that walks the result.

The depth is counted on the text (brackets outside strings), stopping at the first level past the bound; the
text is parsed only when it passes."""

import json
import logging
import re
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

logger = logging.getLogger(__name__)

MAX_JSON_DEPTH = 32
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKET = re.compile(r"[\[\]{}]")


class JsonTooDeep(ValueError):
    def __init__(self) -> None:
        super().__init__(f"The JSON is nested more than {MAX_JSON_DEPTH} levels deep.")


def json_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    depth = 0
    for bracket in _BRACKET.finditer(_STRING.sub('""', text)):
        depth += 1 if bracket.group() in "[{" else -1
        if depth > limit:
            return True
    return False


def json_loads_bounded(text: str | bytes, *, where: str) -> Any:
    """json.loads with the depth bound; raises JsonTooDeep (a ValueError) and logs one line naming `where`."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    if json_depth_exceeds(text):
        logger.warning("refused JSON nested deeper than %d levels (%d characters) at %s", MAX_JSON_DEPTH,
                       len(text), where)  # fmt: skip
        raise JsonTooDeep()
    return json.loads(text)


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser with the depth bound: the API's every JSON body."""

    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        request = (parser_context or {}).get("request")
        where = f"{request.method} {request.path}" if request is not None else "the API"
        try:
            return json_loads_bounded(stream.read() if stream is not None else b"", where=where)
        except JsonTooDeep as error:
            raise ParseError(str(error), code="json_too_deep") from None
        except ValueError as error:
            raise ParseError(f"JSON parse error - {error}") from None
