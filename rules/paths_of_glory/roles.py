"""Units the rules single out by name, in one place (movement and supply both ask)."""

ANA = "br_ana_corps"  # base 11.1.4: not British on limited connections; 11.1.15: converts no space;
# 14.1.5: always in supply
BEF_UNITS = frozenset({"br_bef_corps", "br_bef_army"})  # base 11.1.17: the BEF's area; R06
BEACH_HEAD_UNITS = frozenset({"br_mef_army", "br_aus_corps"})  # base 11.1.10, R36: may use the beach head
BRITISH_ALLIED_CORPS = frozenset({"br_ana_corps", "br_aus_corps", "br_cnd_corps", "br_pt_corps"})  # the ANA, AUS, CND
# and PT corps: pieces of nation br that the rules do not count as British (base 9.5.4.1.1, 12.4.4.3; R114)
