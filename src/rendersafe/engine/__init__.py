"""The machinery every step of a pass shares: the text and its offsets
(`source`), ranges (`regions`), minimal edits (`edits`), how far code is trusted
(`trust`), what may start a construct (`triggers`), the state carried from unit to
unit (`carry`) and the one context a pass threads through its rules (`state`).

It knows no renderer: the Markdown pass, the lexical backstop and the unit
sanitiser build on it.
"""
