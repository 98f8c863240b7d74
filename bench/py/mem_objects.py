# An object-churning, class-heavy program for mem's stack walks
# (bench/RESULTS.md, Session 17, h1): small objects made, linked and
# dropped, through methods several calls deep. 0.5 s natively.
#   python3 mem_objects.py
class Vec:
    __slots__ = ("x", "y")
    def __init__(self, x, y):
        self.x, self.y = x, y
    def add(self, o):
        return Vec(self.x + o.x, self.y + o.y)
    def scale(self, k):
        return Vec(self.x * k, self.y * k)

class Node:
    def __init__(self, name, pos, parent=None):
        self.name = name
        self.pos = pos
        self.parent = parent
        self.tags = {"n": name, "d": 0 if parent is None else parent.tags["d"] + 1}
    def path(self):
        n, out = self, []
        while n is not None:
            out.append(n.name)
            n = n.parent
        return "/".join(reversed(out))

def grow(root, depth, width):
    if depth == 0:
        return [root]
    leaves = []
    for i in range(width):
        c = Node(f"{root.name}{i}", root.pos.add(Vec(i, depth)).scale(2), root)
        leaves.extend(grow(c, depth - 1, width))
    return leaves

total = 0
for r in range(30):
    leaves = grow(Node("r", Vec(0, 0)), 6, 4)
    total += sum(len(l.path()) for l in leaves)
print(total)
