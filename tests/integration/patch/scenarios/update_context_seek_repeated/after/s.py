def a():
    pass
def b():
    return 3
