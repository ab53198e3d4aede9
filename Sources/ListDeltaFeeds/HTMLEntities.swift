/// HTML's named character references that feeds use: HTML 4's Latin-1 set (`&nbsp;` … `&yuml;`), its special
/// characters (`&mdash;`, `&rsquo;`, `&euro;` …) and a few symbols. Names outside it are left as written.
enum HTMLEntities {
    /// The character a name (without `&` and `;`) stands for.
    /// - Complexity: O(1) expected.
    static func character(named name: Substring) -> Character? {
        table[name]
    }

    /// U+00A0 … U+00FF in order, as HTML 4 names them.
    private static let latin1 = """
        nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute \
        micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring \
        AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml \
        times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil \
        egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash \
        ugrave uacute ucirc uuml yacute thorn yuml
        """

    private static let others: [(String, UInt32)] = [
        ("amp", 0x26), ("lt", 0x3C), ("gt", 0x3E), ("quot", 0x22), ("apos", 0x27),
        ("OElig", 0x152), ("oelig", 0x153), ("Scaron", 0x160), ("scaron", 0x161), ("Yuml", 0x178), ("fnof", 0x192),
        ("circ", 0x2C6), ("tilde", 0x2DC), ("ensp", 0x2002), ("emsp", 0x2003), ("thinsp", 0x2009), ("zwnj", 0x200C),
        ("zwj", 0x200D), ("lrm", 0x200E), ("rlm", 0x200F), ("ndash", 0x2013), ("mdash", 0x2014), ("lsquo", 0x2018),
        ("rsquo", 0x2019), ("sbquo", 0x201A), ("ldquo", 0x201C), ("rdquo", 0x201D), ("bdquo", 0x201E),
        ("dagger", 0x2020), ("Dagger", 0x2021), ("bull", 0x2022), ("hellip", 0x2026), ("permil", 0x2030),
        ("prime", 0x2032), ("Prime", 0x2033), ("lsaquo", 0x2039), ("rsaquo", 0x203A), ("euro", 0x20AC),
        ("trade", 0x2122), ("larr", 0x2190), ("uarr", 0x2191), ("rarr", 0x2192), ("darr", 0x2193), ("harr", 0x2194),
        ("minus", 0x2212), ("le", 0x2264), ("ge", 0x2265), ("ne", 0x2260), ("infin", 0x221E), ("hearts", 0x2665),
    ]

    private static let table: [Substring: Character] = {
        var table: [Substring: Character] = [:]
        for (offset, name) in latin1.split(separator: " ").enumerated() {
            table[name] = Character(Unicode.Scalar(UInt32(0xA0 + offset))!)
        }
        for (name, value) in others { table[Substring(name)] = Character(Unicode.Scalar(value)!) }
        return table
    }()
}
