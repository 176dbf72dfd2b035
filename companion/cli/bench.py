def register(sub, groups): pass
