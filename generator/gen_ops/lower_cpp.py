"""placeholder"""
def files(ops):
    return []
