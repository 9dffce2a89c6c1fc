"""The one safe Markdown pipeline: markdown-it without raw HTML, then nh3 with an explicit allow-list.

Comments and concept pages go through it once, when saved or first read; templates then mark the result safe.
"""

import nh3
from markdown_it import MarkdownIt

ALLOWED_TAGS = {
    "p", "br", "hr", "em", "strong", "code", "pre", "blockquote",
    "ul", "ol", "li", "a", "h1", "h2", "h3", "h4", "h5", "h6",
    "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"align"}, "td": {"align"}}
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}

# "js-default" is markdown-it's safe preset: raw HTML off, links validated, tables on.
_markdown = MarkdownIt("js-default", {"html": False, "linkify": False, "typographer": False})


def markdown_render(text: str) -> str:
    """Markdown to HTML safe to show as is: no raw HTML, scripts, event handlers or odd link schemes."""
    html = _markdown.render(text)
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=ALLOWED_URL_SCHEMES,
        link_rel="nofollow noopener noreferrer",
        strip_comments=True,
    )
