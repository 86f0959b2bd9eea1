"""The jass family: the jass tables, roem and trick duties (``_jass``) and the bases of Bela
(``_bela``), Honderden (``_honderden``) and Kruisjassen (``_kruisjas``)."""
