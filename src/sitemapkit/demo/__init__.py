"""The bundled demo site (Northwind Lamps) and its server, with the usual crawl pitfalls."""
