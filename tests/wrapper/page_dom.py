"""page_dom.py: a report page's DOM as headless Chromium built it (--dump-dom), as a tree for
the report tests' checks that each picture is there and labelled. Imported by the inline
checks of tests/wrapper/report.sh and health.sh (sys.path holds this folder)."""
from html.parser import HTMLParser

VOID = {"meta", "br", "img", "input", "link", "hr", "col", "area", "base", "wbr", "source"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    @property
    def classes(self):
        return self.attrs.get("class", "").split()

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def all(self, tag=None, cls=None):
        """Every element below, in document order, of tag and class when given."""
        out = []
        for c in self.children:
            if isinstance(c, Node):
                if (tag is None or c.tag == tag) and (cls is None or cls in c.classes):
                    out.append(c)
                out.extend(c.all(tag, cls))
        return out

    def first(self, tag=None, cls=None):
        found = self.all(tag, cls)
        return found[0] if found else None

    def texts(self, cls=None):
        """The text of every <text> below (of class cls when given)."""
        return [t.text() for t in self.all("text", cls)]


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__()
        self.root = self.at = Node("#document", {}, None)

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.at)
        self.at.children.append(node)
        if tag not in VOID:
            self.at = node

    def handle_startendtag(self, tag, attrs):
        self.at.children.append(Node(tag, attrs, self.at))

    def handle_endtag(self, tag):
        n = self.at
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.at = n.parent

    def handle_data(self, data):
        self.at.children.append(data)


def parse(path):
    b = _Builder()
    b.feed(open(path, encoding="utf-8").read())
    return b.root


def picture(svg):
    """A picture's title, checked: an image to assistive technology (role img) with a
    <title>, the same title written at its top (text.ttl) and a viewBox to scale by."""
    title = svg.first("title")
    assert svg.attrs.get("role") == "img", svg.attrs
    assert title is not None and title.text().strip(), "a picture without a title"
    assert svg.texts("ttl")[:1] == [title.text()], (svg.texts("ttl"), title.text())
    assert svg.attrs.get("viewbox"), ("no viewBox", title.text())
    return title.text()


def pictures(root, cls):
    """Every <svg> of class cls, each checked by picture()."""
    found = root.all("svg", cls)
    for svg in found:
        picture(svg)
    return found
