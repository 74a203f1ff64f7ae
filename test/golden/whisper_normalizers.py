#!/usr/bin/python3
"""Golden outputs of openai/whisper's text normalisers for test/unit/stats/whisper-normalize.test.ts.

The reference is Whisper's own Python code, not a re-implementation:
  openai/whisper release v20250625 (tag commit 31243bad24cc746f07d4c8bfdd2d974872cb1803;
  whisper/normalizers/ identical at c0d2f624c09dc18e709e37c2ad90c039a4eb72a2, the snapshot used),
  run with Debian 12's /usr/bin/python3 (3.11.2, unicodedata 14.0.0), python3-regex and
  python3-more-itertools (apt-get install -y python3-regex python3-more-itertools).

Command that produced test/golden/whisper_normalizers.json (repository root):
  git clone https://github.com/openai/whisper /tmp/whisper   # or any copy of that commit
  /usr/bin/python3 test/golden/whisper_normalizers.py --whisper /tmp/whisper/whisper/normalizers \
      --out test/golden/whisper_normalizers.json
On another machine, recompute the outputs for the stored sentences (same JSON when the
Python and Unicode versions match):
  /usr/bin/python3 test/golden/whisper_normalizers.py --whisper DIR --sentences test/golden/whisper_normalizers.json --out OUT.json
Rule counts of a few sentences (for the hand-checked unit test):
  /usr/bin/python3 test/golden/whisper_normalizers.py --whisper DIR --counts "Um, I'm gonna ..." ...

Sentences (collected deterministically from files on a Debian 12 machine, then stored in the
JSON so the test does not need them): the demo corpus' transcripts and recogniser
hypotheses (resources/demo/*.csv); translated messages from /usr/share/locale/*/LC_MESSAGES/*.mo
(en_GB's British spellings beside their American originals, and 40 other languages in
Latin, Cyrillic, Greek, Arabic, Hebrew, Devanagari, Bengali, Tamil, Thai, CJK, Hangul,
Georgian ... scripts); lines of Debian changelogs (/usr/share/doc/*/changelog.Debian.gz,
e-mail addresses removed); sentences of man pages (/usr/share/man/man1, rendered with
groff); every British spelling of Whisper's english.json in sentences; sentences generated
with a fixed seed that combine numbers, currencies, ordinals, years, fractions, percentages,
times, contractions, fillers and titles; and hand-written edge cases (final sigma, dotted I,
ligatures, superscripts, full-width and Arabic-Indic digits, odd whitespace, brackets).

Rule counts: for each rule family F (see WHISPER_RULE_FAMILIES in
src/main/stats/whisper-english.ts), the words of EnglishTextNormalizer's output with F
switched off that are missing from its full output (multiset difference of str.split()).
Switching a family off needs a copy of EnglishTextNormalizer.__call__ with switches
(`ablated` below); the script checks the copy with every family on equals the original on
every sentence.
"""
import argparse
import collections
import csv
import glob
import gettext
import gzip
import hashlib
import importlib
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
import unicodedata

FAMILIES = ["brackets", "fillers", "contractions", "abbreviations", "numbers", "spellings", "diacritics"]
TITLE_PATTERNS = {
    r"\bmr\b", r"\bmrs\b", r"\bst\b", r"\bdr\b", r"\bprof\b", r"\bcapt\b", r"\bgov\b", r"\bald\b",
    r"\bgen\b", r"\bsen\b", r"\brep\b", r"\bpres\b", r"\brev\b", r"\bhon\b", r"\basst\b",
    r"\bassoc\b", r"\blt\b", r"\bcol\b", r"\bjr\b", r"\bsr\b", r"\besq\b",
}
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_whisper(path):
    """Whisper's normalizers folder as a package of its own (importing `whisper` would need torch)."""
    path = os.path.abspath(path)
    spec = importlib.util.spec_from_file_location("whisper_normalizers_original", os.path.join(path, "__init__.py"), submodule_search_locations=[path])
    pkg = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = pkg
    spec.loader.exec_module(pkg)
    return pkg, importlib.import_module(spec.name + ".basic")


def sha(s):
    return hashlib.sha1(s.encode("utf-8")).hexdigest()


def pick(items, k):
    """k items chosen by hash, independent of file order."""
    return sorted(sorted(set(items)), key=sha)[:k]


def clean(s):
    return s.strip()


def ok_length(s, lo=3, hi=240):
    return lo <= len(s) <= hi and any(c.isalpha() or c.isdigit() for c in s)


# --- sources ---------------------------------------------------------------------------


def demo_sentences():
    out = []
    for f in sorted(glob.glob(os.path.join(ROOT, "resources/demo/*.csv"))):
        with open(f, newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                for col in ("transcript", "hypothesis"):
                    if row.get(col):
                        out.append(row[col])
    return sorted(set(out))


def catalog(path):
    try:
        with open(path, "rb") as fh:
            cat = gettext.GNUTranslations(fh)._catalog
    except Exception:
        return []
    pairs = []
    for k, v in cat.items():
        mid = k[0] if isinstance(k, tuple) else k
        if mid == "" or not isinstance(v, str):
            continue
        pairs.append((mid, v))
    return pairs


def british_sentences(k):
    pairs = []
    for f in sorted(glob.glob("/usr/share/locale/en_GB/LC_MESSAGES/*.mo")):
        pairs += [(a, b) for a, b in catalog(f) if a != b and ok_length(b) and ok_length(a)]
    chosen = pick([b for _, b in pairs], k)
    by_british = {b: a for a, b in pairs}
    out = []
    for b in chosen:
        out += [b, by_british[b]]
    return out


LOCALES = [
    "fr", "de", "es", "it", "pt_BR", "pl", "cs", "sk", "da", "sv", "nb", "is", "fi", "et", "hu",
    "ro", "tr", "vi", "ca", "hr", "lt", "lv", "cy", "ga", "ru", "uk", "bg", "sr", "el", "he",
    "ar", "fa", "hi", "bn", "ta", "th", "ja", "zh_CN", "zh_TW", "ko", "ka", "am",
]


def locale_sentences(per_locale):
    out = []
    for loc in LOCALES:
        texts = []
        for f in sorted(glob.glob(f"/usr/share/locale/{loc}/LC_MESSAGES/*.mo")):
            texts += [clean(v) for _, v in catalog(f) if ok_length(clean(v), 8, 200)]
        out += pick(texts, per_locale)
    return out


EMAIL = re.compile(r"<[^>]*@[^>]*>")


def changelog_sentences(k):
    lines = []
    for f in sorted(glob.glob("/usr/share/doc/*/changelog.Debian.gz")):
        try:
            with gzip.open(f, "rt", encoding="utf-8", errors="strict") as fh:
                for i, line in enumerate(fh):
                    if i > 400:
                        break
                    line = clean(EMAIL.sub("", line))
                    if ok_length(line, 12, 200) and (re.search(r"\d", line) or not line.isascii()):
                        lines.append(line)
        except (UnicodeDecodeError, OSError, EOFError):
            continue
    return pick(lines, k)


def man_sentences(pages, k):
    files = pick(glob.glob("/usr/share/man/man1/*.1.gz"), pages)
    sentences = []
    env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8")
    for f in sorted(files):
        with gzip.open(f, "rb") as fh:
            src = fh.read()
        try:
            text = subprocess.run(
                ["groff", "-t", "-man", "-Tutf8", "-P-c", "-P-b", "-P-u"], input=src, capture_output=True, env=env, timeout=60
            ).stdout.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            continue
        for para in re.split(r"\n\s*\n", text):
            flat = " ".join(para.split())
            for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", flat):
                if ok_length(s, 20, 240) and " " in s:
                    sentences.append(s)
    return pick(sentences, k)


def spelling_sentences(mapping):
    keys = [k for k in mapping if " " not in k]
    frames = [
        "The {0} and the {1} were both on the list, with {2} and {3}.",
        "{0}, {1}; {2} - {3}!",
        "She said \"{0}\" twice, then {1}, {2} and finally {3}.",
        "Is it {0} or {1}? Neither: {2}, {3}.",
    ]
    out = []
    for i in range(0, len(keys), 4):
        group = (keys[i : i + 4] + keys[:4])[:4]
        frame = frames[(i // 4) % len(frames)]
        s = frame.format(*group)
        out.append(s[0].upper() + s[1:] if (i // 4) % 3 == 0 else s)
    return out


ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
SCALES = [(10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (10**3, "thousand")]


def words_below_1000(n, british):
    out = []
    if n >= 100:
        out += [ONES[n // 100], "hundred"]
        n %= 100
        if n and british:
            out.append("and")
    if n >= 20:
        out.append(TENS[n // 10] + ("-" + ONES[n % 10] if n % 10 and british else (" " + ONES[n % 10] if n % 10 else "")))
    elif n > 0:
        out.append(ONES[n])
    return out


def spell(n, british=False):
    if n == 0:
        return "zero"
    out = []
    for scale, name in SCALES:
        if n >= scale:
            out += words_below_1000(n // scale, british) + [name]
            n %= scale
    out += words_below_1000(n, british)
    return " ".join(out)


def generated_sentences(n, seed=20250625):
    rng = random.Random(seed)

    def num():
        return rng.choice([rng.randint(0, 20), rng.randint(21, 99), rng.randint(100, 999), rng.randint(1000, 99999), rng.randint(10**5, 10**9), rng.randint(10**9, 10**13)])

    def money():
        c = rng.choice(["$", "£", "€"])
        v = num()
        return rng.choice([
            f"{c}{v}", f"{c}{v:,}", f"{c}{v}.{rng.randint(0, 99):02d}", f"{c}{rng.randint(1, 99)} million", f"{c}{rng.randint(1, 9)}.{rng.randint(1, 9)} billion",
            f"{spell(v, rng.random() < 0.5)} {rng.choice(['dollars', 'pounds', 'euros', 'cents', 'dollar', 'pound', 'euro', 'cent'])}",
            f"{spell(rng.randint(1, 99))} dollars and {spell(rng.randint(1, 99))} cents", f"{c}{rng.randint(1, 20)} and {rng.randint(1, 99)} cents",
            f"{rng.randint(1, 99)}¢", f"{c}0.{rng.randint(1, 99):02d}", f"{c}0.{rng.randint(0, 9)}", f"{spell(rng.randint(1, 20))} pounds fifty",
        ])

    def quantity():
        v = num()
        return rng.choice([
            str(v), f"{v:,}", spell(v), spell(v, True), f"{v}.{rng.randint(0, 999)}", f"{rng.randint(0, 100)}%", f"{rng.randint(0, 100)} percent",
            f"{spell(rng.randint(0, 100))} per cent", f"{spell(rng.randint(1, 100))} percent", f"{rng.randint(1, 9)}/{rng.randint(2, 12)}",
            f"{spell(rng.randint(1, 9))} and a half", f"{spell(rng.randint(1, 9))} {rng.choice(['hundred', 'thousand', 'million'])} and a half",
            "a half", "half", f"{spell(rng.randint(0, 9))} point {' '.join(spell(rng.randint(0, 9)) for _ in range(rng.randint(1, 4)))}",
            f"point {spell(rng.randint(1, 9))}", f"minus {spell(rng.randint(1, 50))}", f"negative {rng.randint(1, 50)}", f"plus {spell(rng.randint(1, 9))}",
            f"double {rng.choice(ONES[:10] + ['oh'])}", f"triple {rng.choice(ONES[:10] + ['oh'])}", f"{rng.choice(ONES[1:10])} oh {rng.choice(ONES[1:10])}",
            f"{rng.randint(2, 9)}x", f"{rng.randint(1, 400)}mm", f"{rng.randint(1, 99)}kg", f"{rng.randint(1, 10)}{rng.choice(['st', 'nd', 'rd', 'th'])}",
            rng.choice(["first", "second", "third", "fourth", "fifth", "twelfth", "twentieth", "twenty first", "thirty third", "hundredth", "one hundred and first", "thousandth", "millionth", "zeroth"]),
            rng.choice(["ones", "twos", "sixes", "tens", "twenties", "nineties", "hundreds", "thousands", "millions"]),
            f"{rng.randint(1, 9)} {rng.choice(['th', 'st', 's'])}", f"{rng.randint(1, 9)},{rng.randint(100, 999)},{rng.randint(100, 999)}",
            "½", "3½", "¼", "²", "10²", "1⁄2", "1st", "2nd", "3rd", "101st", "11th", "one", "ones", "1s",
        ])

    def when():
        y = rng.randint(1066, 2099)
        return rng.choice([
            str(y), f"the {rng.randint(1, 9)}0s", f"the {rng.randint(1900, 2020) // 10 * 10}s", f"'{rng.randint(1, 9)}0s",
            f"{spell(y // 100)} {spell(y % 100) if y % 100 >= 10 else 'oh ' + spell(y % 100) if y % 100 else 'hundred'}",
            f"two thousand and {spell(rng.randint(1, 30))}", f"{rng.randint(1, 12)}:{rng.randint(0, 59):02d}", f"{rng.randint(1, 12)}:{rng.randint(0, 59):02d} {rng.choice(['am', 'pm', 'a.m.', 'p.m.'])}",
            f"{rng.randint(1, 12)}{rng.choice(['am', 'pm'])}", f"{spell(rng.randint(1, 12))} {spell(rng.randint(10, 59))}", f"half past {spell(rng.randint(1, 12))}",
            f"{rng.choice(['the', ''])} {rng.choice(['first', 'second', 'third', 'twenty second', 'thirty first', '3rd', '21st', '4th'])} of {rng.choice(['May', 'June', 'December'])}",
            f"{rng.randint(1, 28)}/{rng.randint(1, 12)}/{y}", f"{y}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        ])

    def speech():
        return rng.choice([
            "um", "uh", "hmm", "mm", "mhm", "mmm", "Um,", "Uh...", "Hmm?", "erm", "er", "ah", "umm", "uhh",
            "I'm", "I'ma", "Imma", "you're", "we're", "they've", "I'd", "I'd been", "she's been", "he's gone", "it's got", "he'd done", "we'd gone",
            "don't", "doesn't", "didn't", "won't", "can't", "couldn't", "shouldn't", "ain't", "isn't", "y'all", "let's", "ma'am", "o'clock", "rock 'n' roll",
            "gonna", "wanna", "gotta", "woulda", "coulda", "shoulda", "'cause", "dunno", "lemme", "gimme", "finna", "tryna", "dinnae", "cannae", "wee",
            "it 's", "that 's", "John's", "James'", "the '90s", "rock'n'roll", "we 'll", "you've", "who'd've", "y'all'd've", "'em",
        ])

    def title():
        return rng.choice([
            "Mr.", "Mrs.", "Mr", "Mrs", "Ms.", "Dr.", "Dr", "St.", "St", "Prof.", "Capt.", "Gov.", "Ald.", "Gen.", "Sen.", "Rep.", "Pres.", "Rev.", "Hon.",
            "Asst.", "Assoc.", "Lt.", "Col.", "Jr.", "Sr.", "Esq.", "Lt. Col.", "St. Paul's", "Dr. Jones'", "Mr. O'Brien",
        ])

    def extra():
        return rng.choice([
            "[laughter]", "<noise>", "(inaudible)", "[crosstalk]", "(um)", "<unk>", "[", "(", ")", "()", "[ ]", "colour", "organise", "theatre", "centre", "travelling",
            "café", "naïve", "Zoë", "Ångström", "façade", "jalapeño", "Łódź", "Straße", "Ærø", "Þór", "smörgåsbord", "déjà vu", "São Paulo", "Dvořák",
            "e-mail", "well-known", "co-operate", "A.B.C.", "U.S.", "e.g.", "etc.", "No. 5", "#1", "&", "@home", "x + y = z", "5 - 3", "a/b", "C++", "C#", "100°C", "6'2\"",
        ])

    words = ["the", "we", "paid", "about", "nearly", "it", "was", "is", "and", "for", "on", "at", "by", "they", "said", "so", "then", "only", "just", "maybe", "there", "were", "in", "of"]
    parts = [money, quantity, when, speech, title, extra]
    out = []
    for _ in range(n):
        k = rng.randint(2, 6)
        toks = []
        for _ in range(k):
            toks.append(rng.choice(parts)())
            if rng.random() < 0.6:
                toks.append(" ".join(rng.choice(words) for _ in range(rng.randint(1, 3))))
        s = " ".join(t for t in toks if t)
        if rng.random() < 0.5:
            s = s[0].upper() + s[1:]
        s += rng.choice(["", ".", "?", "!", ",", "...", " .", "…"])
        out.append(s)
    return out


EDGE_CASES = [
    "", " ", "\t\n", "a", "A.", ".", "...", "$", "%", "£", "€", "¢", "$.", ".5", "5.", "5..", "1.2.3.4", "192.168.0.1", "v2.0.1", "3.14159",
    "ΟΔΟΣ", "ΟΔΟΣ ΣΑΣ", "ὈΔΥΣΣΕΎΣ", "Σ", "AΣ", "AΣB", "A.Σ", "AΣ'", "ΣΑ", "İstanbul", "İ", "DİYARBAKIR", "ǅ", "ǈungla", "ﬁnancial ﬂow", "ﬀ", "Ⅻ", "ⅻ", "№ 5",
    "x² + y³", "H₂O", "①②③", "１２３ ＡＢＣ", "٣ apples", "١٢٣", "۴۵", "४२", "৫", "๑๒", "𝟏𝟐𝟑", "𝐀𝐁𝐂", "٣.٥", "one ٣", "three point ٥",
    "a\u00a0b", "a\u2009b", "a\u200bb", "a\ufeffb", "\ufeffhello", "a\x1cb", "a\x1fb", "a\x85b", "a\u2028b", "a\u3000b", "tab\tseparated\ttext", "line\r\nbreak", "end\n",
    "e\u0301", "cafe\u0301", "n\u0303", "\u0301", "a\u20ddb", "a\u0488b", "ǆ", "Ǆ", "ß", "ẞ", "ﬅ", "ŉ", "ǰ", "ΐ", "K", "Å", "Ω",
    "नमस्ते दुनिया", "हिन्दी में 25 रुपये", "বাংলা ভাষা", "தமிழ் மொழி", "ภาษาไทย ๑๒๓", "ພາສາລາວ", "မြန်မာ", "ខ្មែរ", "සිංහල",
    "日本語のテキスト、１２３円です。", "中文句子：我有三本书。", "한국어 문장입니다. 123원", "ㄱㄴㄷ", "ｶﾀｶﾅ", "ガ", "ｶﾞ",
    "العربية: لدي ٣ كتب.", "עִבְרִית עם ניקוד", "فارسی ۱۲۳", "ქართული ენა", "Հայերեն", "አማርኛ", "Ελληνικά: τρία", "Русский текст, 5 рублей", "Українська мова",
    "Tiếng Việt có dấu: Hà Nội, Đà Nẵng", "Türkçe: ığüşöç İĞÜŞÖÇ", "Polski: zażółć gęślą jaźń", "Čeština: příliš žluťoučký kůň", "Dansk: æøå ÆØÅ",
    "Íslenska: þórður ðé", "Français : « guillemets » — tiret", "Deutsch: Größe, Maß", "Español: ¿Qué? ¡Sí!", "Română: ș ț Ș Ț ş ţ",
    "emoji 😀 test 👍🏽 ok", "🇬🇧 flag", "family 👨‍👩‍👧", "♥ ★ ☺", "→ ← ↔", "© ® ™", "§ ¶ †", "° ′ ″", "± × ÷", "∞ ≠ ≤", "⅓ ⅔ ¾", "1 ½ cups",
    "[laughter] hello", "hello [ noise ] world", "<unk> token", "a <b> c", "(a (nested) b)", "((double))", "[unclosed bracket", "unclosed paren (here",
    "a]b[c", "x > y < z", "[a>b]", "<a]b>", "(", ")", "()", "(())", "[]", "<>", "one ( two ) three", "one [two] three",
    "don't", "DON'T", "Don't", "don’t", "don ' t", "can't won't shan't", "I 'm", "it 's been", "they 're", "rock 'n' roll", "'tis", "'twas",
    "y'all", "Y'ALL", "ain't", "AIN'T", "i'ma", "imma", "ma'am", "MA'AM", "o'clock", "O'Brien", "d'Artagnan", "l'hôpital", "n't", "'s", "'", "''", "'''",
    "mr", "Mr", "MR.", "mrs.", "st. john's", "St John's Wood", "dr who", "prof.x", "gen z", "rep. of ireland", "col. mustard", "jr.", "esq", "lt.", "sr.",
    "hmm", "HMM", "mm", "mmm", "mhm", "uh", "UH", "um", "Um.", "uh-huh", "um-hum", "hmmm", "umm", "mm-hmm", "20mm", "mm mm", "um um um",
    "and a half", "one and a half", "two and a half million", "and a half and a half", "a half and a half", "and  a   half", "and a halfway",
    "one", "ones", "1", "1s", "one one", "eleven one", "twenty one", "twenty one twenty one", "one twenty one", "oh one", "o one", "zero zero seven",
    "double", "triple", "double double", "double oh", "triple zero", "double one two", "point", "point point", "point five five", "one point", "one point two point three",
    "minus", "minus minus five", "plus", "negative positive", "minus five dollars", "five minus three", "plus 5", "minus 5.5",
    "dollar", "dollars", "five dollars", "five dollar bill", "$5 and 7 cents", "$5 and ¢7", "$0.07", "$0.7", "£0.50", "€0.05", "$1.5 million", "$1.55 million",
    "five hundred", "five hundreds", "a hundred", "hundred", "hundreds of thousands", "one hundred and one", "one hundred one", "nine hundred ninety nine thousand nine hundred ninety nine",
    "one million two hundred thousand", "twelve hundred", "nineteen eighty four", "nineteen oh five", "two thousand twenty", "two thousand and twenty",
    "one decillion", "nine nonillion", "a billion billion", "ten trillion and one", "zero hundred", "oh hundred", "0 thousand", "zero thousandth",
    "first", "second", "twenty first", "twenty second place", "one hundredth", "two thousandth", "millionths", "the 1st, 2nd and 3rd", "101st", "22 nd", "3 rd", "4 th", "5 s",
    "1960s", "the 60s", "'60s", "sixties", "the nineteen sixties", "twenties", "1,000", "1,000,000", "10,00,000", "1,2,3", "1, 2, 3", "1 ,000", "3,14",
    "25%", "25 %", "twenty five percent", "twenty five per cent", "per cent", "percent", "5 per", "%5", "100%!", "50.5%", "0.5 %",
    "10:30", "10.30", "10:30am", "10 30 am", "half past ten", "quarter to five", "24/7", "9-5", "1/2", "3/4 cup", "½", "2½",
    "A4", "mp3", "4x4", "covid-19", "COVID19", "3D", "b2b", "24th", "1st2nd", "abc123def", "123abc", "x1y2z3",
    "1.5 million", "1.5million", "point five million", ".5 million", "1.25 thousand", "1.333 thousand", "0.001 million", "5.0 thousand", "007 million",
    "the year 2000", "in 1999.", "it was 1984!", "call 911", "route 66", "agent 007", "room 101", "pi is 3.14159", "e is 2.71828...",
    "Hello, world!", "HELLO WORLD", "Hello... world?!", "“Quotes” and ‘single’", "semi;colon:colon", "under_score", "hyphen-ated", "en–dash", "em—dash",
    "back\\slash", "pipe|char", "tilde~", "caret^", "grave`", "at@sign", "hash#tag", "amp&ersand", "star*", "plus+sign", "equals=", "dollar$sign", "cent¢sign",
]

# --- the normalisers -------------------------------------------------------------------


def ablated(english, basic, s, off):
    """EnglishTextNormalizer.__call__ (english.py, v20250625) with rule families switched off."""
    s = s.lower()
    if "brackets" not in off:
        s = re.sub(r"[<\[][^>\]]*[>\]]", "", s)
        s = re.sub(r"\(([^)]+?)\)", "", s)
    if "fillers" not in off:
        s = re.sub(english.ignore_patterns, "", s)
    if "contractions" not in off:
        s = re.sub(r"\s+'", "'", s)
    for pattern, replacement in english.replacers.items():
        family = "abbreviations" if pattern in TITLE_PATTERNS else "contractions"
        if family not in off:
            s = re.sub(pattern, replacement, s)
    if "numbers" not in off:
        s = re.sub(r"(\d),(\d)", r"\1\2", s)
    s = re.sub(r"\.([^0-9]|$)", r" \1", s)
    if "diacritics" not in off:
        s = basic.remove_symbols_and_diacritics(s, keep=".%$¢€£")
    else:
        keep = ".%$¢€£"
        s = "".join(
            c if c in keep or unicodedata.category(c) == "Mn" else " " if unicodedata.category(c)[0] in "MSP" else c
            for c in unicodedata.normalize("NFKD", s)
        )
    if "numbers" not in off:
        s = english.standardize_numbers(s)
    if "spellings" not in off:
        s = english.standardize_spellings(s)
    s = re.sub(r"[.$¢€£]([^0-9])", r" \1", s)
    s = re.sub(r"([^0-9])%", r"\1 ", s)
    s = re.sub(r"\s+", " ", s)
    return s


def rule_counts(english, basic, s, full):
    full_words = collections.Counter(full.split())
    out = []
    for f in FAMILIES:
        without = collections.Counter(ablated(english, basic, s, {f}).split())
        out.append(sum((without - full_words).values()))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--whisper", required=True, help="the whisper/normalizers folder of openai/whisper")
    ap.add_argument("--out")
    ap.add_argument("--sentences", help="take the sentences from this golden JSON instead of collecting them")
    ap.add_argument("--counts", nargs="+", help="print the rule counts of these sentences and exit")
    args = ap.parse_args()
    pkg, basic_mod = load_whisper(args.whisper)
    english = pkg.EnglishTextNormalizer()
    basic = pkg.BasicTextNormalizer()
    if args.counts:
        for s in args.counts:
            full = english(s)
            print(json.dumps({"text": s, "english": full, "counts": dict(zip(FAMILIES, rule_counts(english, basic_mod, s, full)))}, ensure_ascii=False))
        return
    if args.sentences:
        with open(args.sentences, encoding="utf-8") as fh:
            items = [(c[0], c[1]) for c in json.load(fh)["cases"]]
    else:
        sources = [
            ("edge", EDGE_CASES),
            ("demo", demo_sentences()),
            ("en_GB", british_sentences(300)),
            ("locale", locale_sentences(20)),
            ("changelog", changelog_sentences(400)),
            ("man", man_sentences(60, 450)),
            ("spelling", spelling_sentences(english.standardize_spellings.mapping)),
            ("generated", generated_sentences(1100)),
        ]
        seen = set()
        items = []
        for name, texts in sources:
            for t in texts:
                if t not in seen:
                    seen.add(t)
                    items.append((name, t))
    cases = []
    for name, s in items:
        e = english(s)
        if ablated(english, basic_mod, s, set()) != e:
            raise SystemExit(f"the ablation copy differs from EnglishTextNormalizer on {s!r}")
        cases.append([name, s, e, basic(s), rule_counts(english, basic_mod, s, e)])
    files = {f: hashlib.sha256(open(os.path.join(args.whisper, f), "rb").read()).hexdigest() for f in ("basic.py", "english.py", "english.json")}
    mapping = english.standardize_spellings.mapping
    doc = {
        "whisper": {
            "repository": "https://github.com/openai/whisper",
            "release": "v20250625",
            "commit": "c0d2f624c09dc18e709e37c2ad90c039a4eb72a2",
            "sha256": files,
        },
        "python": sys.version.split()[0],
        "unicodedata": unicodedata.unidata_version,
        "command": "/usr/bin/python3 test/golden/whisper_normalizers.py --whisper WHISPER/whisper/normalizers --out test/golden/whisper_normalizers.json",
        "spellingMappingSha256": hashlib.sha256(json.dumps(mapping, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest(),
        "families": FAMILIES,
        "columns": ["source", "text", "whisper-english", "whisper-basic", "rule counts (words changed per family)"],
        "counts": dict(collections.Counter(c[0] for c in cases)),
        "cases": cases,
    }
    del doc["cases"]
    # One case per line keeps diffs readable.
    head = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    lines = ",\n".join(json.dumps(c, ensure_ascii=False, separators=(",", ":")) for c in cases)
    text = head[:-1] + ',"cases":[\n' + lines + "\n]}"
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    else:
        print(text)
    print(f"{len(cases)} sentences: {doc['counts']}", file=sys.stderr)


if __name__ == "__main__":
    main()
