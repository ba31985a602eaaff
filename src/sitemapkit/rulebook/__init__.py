"""Value checks that return (code, message): the one rule book the writer, reader, validator and
crawler call. No XML, no I/O.
"""
