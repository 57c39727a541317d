"""Write the bundled sample workspaces under `sample_runs/`, deterministically.

Five workspaces (SPEC §2, §3, §7, §8), each with its own README saying what it shows:

- `listing-reviewer/`: seed 000's marketplace reviewer; a cautious newer model that a plain
  pass/fail count blocks and a gate on the costly outcomes passes;
- `listing-reviewer-decisive/`: the same baseline against a model that waves violations through;
- `agent-suite/`: seed 001's prompt edit on a support agent, INCONCLUSIVE, with its reruns and
  repeated baseline runs for flaky-list curation;
- `support-assistant/`: seed 002's year-old suite for `flipgate suite audit`, with its history of
  runs and five signed rejections;
- `winner-rule/`: seed 003's table, three candidates ranked against an incumbent by the release
  rule (`flipgate rank`).

The figures are not sampled: a listing table and a plan of which decision each model gets wrong
fix them. The seed only drives second metrics (latency, tokens, cost) and order ids. Running the
script twice gives byte-identical files: it rebuilds the output folder from scratch, keeps the
signed decisions it would write again as they stand, and refuses to drop or change any other.

    uv run python scripts/make_sample_runs.py [--out DIR] [--seed N]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SEED = 20261120

# --------------------------------------------------------------------------- runs and files


@dataclass(frozen=True)
class RunManifest:
    """What run.yaml says (SPEC §2)."""

    run_id: str
    created: str
    key: dict[str, str]
    change: dict[str, Any] | None = None
    labels: dict[str, str] | None = None
    suite: str = "full"


@dataclass(frozen=True)
class Run:
    manifest: RunManifest
    rows: list[dict[str, Any]]


def yaml_scalar(value: object) -> str:
    """Plain YAML for our own ids and times; JSON quoting where a plain scalar would misread."""
    text = str(value)
    plain = text and all(ch.isalnum() or ch in "-_.@:/" for ch in text) and text[0].isalpha()
    return text if plain else json.dumps(text)


def render_run_yaml(m: RunManifest) -> str:
    lines = [f"run_id: {m.run_id}", f"suite: {m.suite}", f"created: {m.created}"]
    if m.change:
        keys = ", ".join(m.change["keys"])
        lines += ["change:", f"  keys: [{keys}]", f"  summary: {yaml_scalar(m.change['summary'])}"]
    lines.append("key:")
    lines += [f"  {name}: {yaml_scalar(value)}" for name, value in m.key.items()]
    if m.labels:
        labels = ", ".join(f"{k}: {v}" for k, v in m.labels.items())
        lines.append(f"labels: {{{labels}}}")
    return "\n".join(lines) + "\n"


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


def write_run(directory: Path, run: Run) -> None:
    write_text(directory / "run.yaml", render_run_yaml(run.manifest))
    lines = (json.dumps(row, ensure_ascii=False) for row in run.rows)
    write_text(directory / "results.jsonl", "".join(line + "\n" for line in lines))


# --------------------------------------------------------------------------- listing reviewer

RULES = ("prohibited_items", "recalled_products", "misleading_claims", "off_platform_contact")
RULE_BY_LETTER = dict(zip("PRMO", RULES, strict=True))
LABEL_BY_LETTER = {"A": "approve", "R": "reject", "E": "escalate"}


@dataclass(frozen=True)
class Listing:
    """One test case of the reviewer suite: the listing and its expected verdict per rule."""

    number: int
    title: str
    category: str
    price: int
    description: str
    expected: dict[str, str]
    notes: dict[str, str]  # rule -> why the expected verdict is not approve
    safety: bool

    @property
    def case(self) -> str:
        return f"listing-{self.number:03d}"


def listing(
    number: int,
    title: str,
    category: str,
    price: int,
    description: str,
    expected: str = "AAAA",
    safety: bool = False,
    **notes: str,
) -> Listing:
    """`expected` is one letter per rule in RULES order (A/R/E); `notes` are keyed P/R/M/O."""
    return Listing(
        number,
        title,
        category,
        price,
        description,
        {rule: LABEL_BY_LETTER[x] for rule, x in zip(RULES, expected, strict=True)},
        {RULE_BY_LETTER[letter]: text for letter, text in notes.items()},
        safety,
    )


L = listing
# fmt: off
LISTINGS: tuple[Listing, ...] = (
    L(1, "IKEA Kallax shelf unit 4x4, white", "furniture", 60, "Some scuffs on one side, all shelves included. Collection from Leeds, already dismantled."),
    L(2, "Trek Marlin 5 mountain bike, size L, 2021", "bikes", 420, "Serviced in May, new brake pads, tubeless-ready rims. Small scratch on the top tube."),
    L(3, "Le Creuset cast iron casserole 24 cm, cerise", "kitchen", 140, "Used a handful of times, enamel perfect, no chips. Lid knob is the original black one."),
    L(4, "Sony WH-1000XM4 headphones, boxed", "electronics", 150, "Noise cancelling works perfectly. Comes with case, cable and the original box."),
    L(5, "Unfinished 80% lower receiver kit with jig", "sporting", 95, "Easy weekend build, no paperwork needed. Jig and drill bits included.", "RAAA", safety=True, P="an 80% lower is an untraceable firearm part; firearm parts are banned"),
    L(6, "Children's picture books bundle, 25 titles", "books", 20, "Julia Donaldson, Oliver Jeffers and more. Smoke-free home, a few have names written inside."),
    L(7, "Pepper spray keychain, 2-pack", "accessories", 18, "Compact self-defence spray, 10 m range, UV marker dye. Never used.", "RAAA", P="pepper spray is a self-defence weapon on the prohibited list"),
    L(8, "Nespresso Vertuo coffee machine, used twice", "kitchen", 65, "Unwanted gift, descaled and boxed. Includes 12 pods."),
    L(9, "Dried sourdough starter, 10-year-old culture", "food", 8, "Dried flakes in a sealed pouch with feeding instructions. Posted in a letter."),
    L(10, "Levi's 501 jeans, W32 L32, mid blue", "clothing", 25, "Worn a few times, no fading or rips. Button fly."),
    L(11, "Ray-Ban Wayfarer sunglasses, 12 pairs wholesale", "fashion", 108, "Original Ray-Ban, £9 a pair, no case or receipt. Bulk only.", "RAAA", P="branded sunglasses at a tenth of retail, in bulk, no proof: counterfeit goods"),
    L(12, "Vape pods, mango ice, 20-pack, sealed", "health", 30, "Sealed boxes, 20 mg nicotine salt, fits most pod kits. Long expiry.", "RAAA", P="nicotine vape products are on the prohibited list"),
    L(13, "Submariner-style watch, AAA replica", "fashion", 120, "Looks genuine, 1:1 dial and bezel, automatic movement. Nobody will tell the difference.", "RAAA", P="a 1:1 replica of a trademarked watch is counterfeit goods"),
    L(14, "Dyson V8 cordless vacuum, new battery", "home", 130, "Battery replaced in March, runs 35 minutes. Crevice and brush tools included."),
    L(15, "Victorinox chef knife set, 8 pieces with block", "kitchen", 75, "Kitchen knives in a beech block, kept sharp, dishwasher never used."),
    L(16, "Fiskars bypass pruning shears, razor-sharp", "garden", 15, "Razor-sharp blades, cuts 2 cm branches. Barely used, new spring."),
    L(17, "PlayStation 5 disc edition + 2 controllers", "electronics", 380, "Works perfectly, original box, one controller has slight stick drift."),
    L(18, "Nestling ComfortRide infant car seat CR-200, 2021", "baby", 45, "Rear-facing, 0-13 kg, never in an accident. Covers washed, base not included.", "ARAA", safety=True, R="Nestling CR-200 seats made in 2021 are recalled: the harness buckle can release under load"),
    L(19, "IKEA Poang armchair, birch and beige", "furniture", 50, "Cushion cover washed, frame solid. Collection only."),
    L(20, "Canon EOS 250D with 18-55 mm kit lens", "electronics", 390, "About 4,000 shutter count, two batteries, strap and 64 GB card."),
    L(21, "Voltra PB-20 power bank, 20,000 mAh", "electronics", 22, "Charges a phone 4 times, USB-C in and out. Slightly warm when charging, normal.", "ARAA", R="Voltra PB-20 power banks are recalled: the cells can overheat while charging"),
    L(22, "Oak veneer dining table, seats 6", "furniture", 180, "180 x 90 cm, a few marks on the surface, legs unscrew for transport."),
    L(23, "CBD gummies 25 mg, 30 count, hemp-derived", "health", 28, "Hemp-derived, under 0.2% THC, lab report in the photos. Sealed tub.", "EAAA", P="hemp-derived CBD edibles are allowed in some regions only; the seller's region is not stated"),
    L(24, "Vintage tin toy robot, rare 1950s original", "collectibles", 65, "Wind-up works, some paint wear. Bought at an estate sale, original box missing."),
    L(25, "Hydro Flask 32 oz bottles, 3 colours", "outdoors", 22, "Three bottles, one has a small dent. Lids included."),
    L(26, "Nintendo Switch OLED, white, boxed", "electronics", 210, "Hardly used, screen protector on since day one. Email me at switchdeals@protonmail.com and I'll knock off 10%.", "AAAR", O="an email address offered for a discount moves the sale off the platform"),
    L(27, "Homely PC-6 pressure cooker, 6 qt", "kitchen", 35, "Electric multi-cooker, 7 functions, inner pot has no scratches.", "ARAA", R="Homely PC-6 cookers are recalled: the lid can be opened while under pressure"),
    L(28, "Patagonia Nano Puff jacket, women's M", "clothing", 70, "Navy, worn one winter, no tears. Packs into its own pocket."),
    L(29, "Drop-side crib, white, with mattress", "baby", 70, "Solid pine, side drops down for easy lifting. Mattress never wet.", "RRAA", safety=True, P="drop-side cribs may not be sold", R="drop-side cribs are under a standing recall: the side can detach and trap a child"),
    L(30, "Garmin Forerunner 245 GPS watch", "electronics", 110, "Battery still lasts a week, charger included, small scratch on the bezel."),
    L(31, "Toy archery set, suction-cup arrows, ages 6+", "toys", 18, "Plastic bow, 6 suction-cup arrows and a target. Great for the garden."),
    L(32, "Bosch 18 V cordless drill, two batteries", "tools", 85, "Drill driver with charger and case. Batteries hold charge well."),
    L(33, "Slimming capsules, 60 count", "health", 25, "Lose 10 kg in a month with no diet and no exercise. Sealed bottle.", "AARA", M="a weight-loss promise no capsule can support"),
    L(34, "Louis Vuitton Neverfull MM tote, authentic", "fashion", 95, "100% authentic, bought abroad, no receipt or dust bag.", "RARA", P="a designer tote at a tenth of retail with no provenance is counterfeit goods", M="'100% authentic' on a bag that is not"),
    L(35, "Kindle Paperwhite 11th gen, 8 GB", "electronics", 70, "With a fabric cover, no scratches on the screen."),
    L(36, "Automatic switchblade knife, 9 cm", "accessories", 40, "Spring-assisted button opening, black blade, pocket clip.", "RAAA", safety=True, P="switchblades are prohibited weapons"),
    L(37, "Baby clothes bundle 0-3 months, 30 pieces", "baby", 25, "Vests, sleepsuits and hats, all washed, smoke-free home."),
    L(38, "Leathercraft starter kit with round knife and awl", "crafts", 35, "Everything to start: round knife, stitching awl, needles, waxed thread, edge tools."),
    L(39, "Apple iPad 9th gen 64 GB, space grey", "electronics", 190, "Battery health 91%, always in a case, charger included."),
    L(40, "Instagram account, 25k followers, fitness niche", "digital", 300, "Real, engaged followers, 4% engagement. Login details handed over after payment.", "RAAA", P="social media accounts may not be bought or sold"),
    L(41, "Compound crossbow, 80 lb draw, hunting", "sporting", 240, "Scope and 6 bolts included, string waxed. Collection preferred.", "EAAA", P="crossbows are legal to sell in some regions and not in others; the region is not stated"),
    L(42, "Lego Technic 42115 Lamborghini Sian, complete", "toys", 260, "Built once, all pieces checked against the manual, box and booklets included."),
    L(43, "Gaming PC, Ryzen 5, RTX 3070, 16 GB", "electronics", 650, "Runs everything at 1440p. Message me here for the full spec sheet."),
    L(44, "Stokke Tripp Trapp high chair, natural", "baby", 120, "Baby set and tray included, a few marks on the footplate."),
    L(45, "iPhone 13 128 GB, midnight, unlocked", "electronics", 330, "Battery 88%, no cracks. Text 555-0143 for a faster reply.", "AAAR", O="a phone number in the description moves the sale off the platform"),
    L(46, "Weber kettle barbecue 57 cm", "garden", 90, "Used two summers, grill cleaned, lid thermometer works."),
    L(47, "Antique hunting knife, 18 cm blade, collector piece", "collectibles", 85, "Stag handle, leather sheath, maker's mark on the ricasso. Sold as a collector's item.", "EAAA", P="antique blades are allowed as collectibles but restricted by length and region; this one needs a person"),
    L(48, "Samsung 55 inch 4K TV, wall mount included", "electronics", 280, "2022 model, remote and stand included, no dead pixels."),
    L(49, "Acuvue Oasys contact lenses, -2.50, 6 boxes", "health", 60, "Unopened, expiry 2028. Changed prescription so no longer need them.", "RAAA", P="prescription contact lenses may only be sold against a prescription"),
    L(50, "9 mm ammunition, 50 rounds", "sporting", 35, "Full metal jacket, factory box. Range leftovers.", "RAAA", P="ammunition is on the prohibited list"),
    L(51, "Bugaboo Fox pushchair, black", "baby", 350, "Carrycot and seat unit, rain cover. Wheels recently replaced."),
    L(52, "Cozyrest inclined infant sleeper", "baby", 30, "Gently rocks and inclines so baby sleeps longer. Barely used.", "ARAA", safety=True, R="Cozyrest inclined sleepers are recalled: infants can roll over and suffocate"),
    L(53, "Yamaha P-45 digital piano with stand", "music", 260, "88 weighted keys, sustain pedal, stand and bench."),
    L(54, "Room to rent in a shared flat, Zone 2", "housing", 650, "Double room, bills included, available December. Email john.k.rentals@gmail.com to book a viewing.", "AAAR", O="an email address for viewings moves the contact off the platform"),
    L(55, "Board games bundle: Catan, Ticket to Ride, Carcassonne", "toys", 45, "All complete, cards sleeved."),
    L(56, "Whey protein 2 kg, chocolate", "health", 40, "Sealed tub, supports muscle recovery after training. Expiry 2027."),
    L(57, "The North Face Base Camp duffel, L", "outdoors", 60, "Used on two trips, straps and zips perfect."),
    L(58, "Replica WWII bayonet, decorative", "collectibles", 60, "Display piece, blunt edge, comes with scabbard.", "EAAA", P="replica bayonets are allowed only when blunt; the photos do not show the edge"),
    L(59, "Organic Chemistry textbook, 8th ed., like new", "books", 30, "Some highlighting in chapters 3-5. See my shop page for more course books."),
    L(60, "Moccamaster coffee maker, silver", "kitchen", 120, "Brews in 6 minutes, descaled monthly, glass jug."),
    L(61, "Herbal tincture with kratom extract, 50 ml", "health", 35, "Cures anxiety and insomnia within days, all natural.", "RARA", P="kratom is a controlled substance on the prohibited list", M="'cures anxiety and insomnia' is an unsupported medical claim"),
    L(62, "Brompton M6L folding bike", "bikes", 700, "Six-speed, mudguards and rack, folds in 20 seconds."),
    L(63, "Fireworks assortment, category F3, 120 shots", "seasonal", 90, "Big display cake, professional effects. Collection only.", "RAAA", P="F3 fireworks need a licence and may not be sold on the platform"),
    L(64, "Stepwise SW-3 baby walker with toys", "baby", 25, "Adjustable height, activity tray. Baby loved it.", "ARAA", safety=True, R="Stepwise SW-3 walkers are recalled: they can tip over at steps"),
    L(65, "Vitamix E310 blender", "kitchen", 230, "48 oz jug, tamper included, motor strong."),
    L(66, "Airsoft rifle, M4 style, orange tip removed", "sporting", 150, "Electric, 350 fps, two magazines. Orange tip removed for realism.", "EAAA", P="airsoft is allowed, but a removed orange tip may breach replica-firearm rules depending on region"),
    L(67, "IKEA Malm double bed frame, white", "furniture", 70, "Slats included, dismantled and ready to go."),
    L(68, "Fujifilm X100V, silver", "electronics", 1100, "Low shutter count, thumb grip and spare battery."),
    L(69, "Essential oil diffuser, 300 ml", "home", 25, "Purifies the air and lifts your mood. Seven LED colours."),
    L(70, "Pokemon cards binder, 200 commons", "collectibles", 30, "Mixed sets 2019-2023, binder included."),
    L(71, "MagnaCube 216-piece magnet set, 5 mm", "toys", 20, "Neodymium balls, endless shapes. Safe for all ages.", "RRRA", P="high-powered magnet sets are on the prohibited list", R="MagnaCube sets are recalled: swallowed magnets can perforate the gut", M="'safe for all ages' on a recalled ingestion hazard"),
    L(72, "Breeze HD-1800 hair dryer, pink", "beauty", 18, "2000 W, two speeds, diffuser included.", "ARAA", R="Breeze HD-1800 dryers are recalled: the handle overheats"),
    L(73, "MSR Hubba Hubba 2-person tent", "outdoors", 250, "Footprint included, no holes, seams resealed."),
    L(74, "Kids' balance bike, 12 inch", "bikes", 35, "Adjustable seat, air tyres, ages 2-4."),
    L(75, "AirPods Pro 2nd gen, receipt included", "electronics", 140, "Bought in March, receipt from the Apple Store, AppleCare until 2027."),
    L(76, "Hoverboard 6.5 inch, light-up wheels", "toys", 60, "Bluetooth speaker, goes 12 km/h. Charger included.", "AEAA", R="several hoverboard models are recalled for battery fires; the brand and model are not shown"),
    L(77, "Record collection, 40 jazz LPs", "music", 160, "Blue Note and Impulse reissues, all play well, sleeves a bit worn."),
    L(78, "Squier Stratocaster electric guitar", "music", 140, "Sunburst, new strings, gig bag."),
    L(79, "VoltRide VX-48 e-bike battery, 48 V", "bikes", 120, "13 Ah, holds charge well, key and charger included.", "ARAA", R="VoltRide VX-48 packs are recalled: fire risk while charging"),
    L(80, "Smeg kettle, pastel blue", "kitchen", 55, "Limescale filter, no dents."),
    L(81, "Nike Pegasus 40 running shoes, UK 9", "clothing", 45, "About 100 km on them, clean."),
    L(82, "Self-defence keychain with whistle and torch", "accessories", 12, "Loud whistle and a small LED torch on a keyring. No spray, no blade."),
    L(83, "Solid brass knuckles, paperweight", "accessories", 25, "Heavy paperweight, fits four fingers.", "RAAA", safety=True, P="brass knuckles are prohibited weapons whatever they are called"),
    L(84, "Philips Hue starter kit, 3 bulbs and bridge", "home", 75, "E27 colour bulbs, bridge v2, app works."),
    L(85, "OBD2 diagnostic tool with mileage correction", "automotive", 120, "Reads all fault codes. Mileage correction unlocked, legal for servicing.", "RARA", P="odometer-altering tools are prohibited", M="'legal for servicing' on a tool that rolls back mileage"),
    L(86, "Mid-century dining chairs x4", "furniture", 160, "Teak frames, reupholstered in green."),
    L(87, "Wooden duck decoys, set of 6", "collectibles", 40, "Hand-painted mallards, great for display."),
    L(88, "Detox tea, 28-day pack", "health", 20, "Lose 5 kg in a week and flush out toxins.", "AARA", M="a weight-loss promise no tea can support"),
    L(89, "Nanit Pro baby monitor with wall mount", "baby", 150, "Camera, wall mount and sensor band, subscription cancelled."),
    L(90, "Leftover oxycodone 10 mg, 20 tablets", "health", 60, "Post-surgery, didn't need them. Sealed blister.", "RAAA", safety=True, P="prescription opioids may never be sold"),
    L(91, "Vintage Pyrex bowls, set of 4", "kitchen", 40, "Primary colours, no chips, a little wear on the red one."),
    L(92, "Duty-free cigarette cartons x5", "accessories", 150, "Sealed cartons, bought abroad.", "RAAA", P="tobacco is on the prohibited list"),
    L(93, "2 tickets, Saturday concert, standing", "tickets", 120, "Face value. WhatsApp only +44 7700 900456.", "AAAR", O="a WhatsApp number moves the sale off the platform"),
    L(94, "Rattan garden sofa set, 4 seats", "garden", 220, "Cushions stored indoors over winter, glass table top."),
    L(95, "French bulldog puppy, 8 weeks", "pets", 1800, "Vaccinated and microchipped. Deposit via PayPal friends and family, call 07700 900789.", "RAAR", P="live animals may not be sold on the platform", O="a phone number and an off-platform deposit"),
    L(96, "Kenwood stand mixer, 4.6 l", "kitchen", 110, "K-beater, whisk and dough hook, bowl has no dents."),
    L(97, "WarmGlo SH-15 oil-free space heater", "home", 30, "1500 W, remote, tip-over switch. Heats a room fast.", "ARAA", safety=True, R="WarmGlo SH-15 heaters are recalled: the tip-over switch fails and they can start fires"),
    L(98, "Bose SoundLink Flex speaker", "electronics", 80, "Waterproof, blue, charger included."),
    L(99, "3-seater sofa, grey fabric", "furniture", 150, "Collection only, call 07700 900123 to arrange a time.", "AAAR", O="a phone number in the description moves the contact off the platform"),
    L(100, "Makita circular saw 165 mm", "tools", 70, "Corded, blade guard intact, spare blade."),
    L(101, "Green laser pointer, 5 mW, for astronomy", "electronics", 25, "Class 3R, for pointing out stars. AAA batteries included."),
    L(102, "Baby sling wrap, grey", "baby", 20, "Stretchy wrap, washed, instructions included."),
    L(103, "Wool winter coat, women's 12", "clothing", 80, "Keeps you warm down to -20 C. Charcoal, dry cleaned."),
    L(104, "Xbox Series S, 512 GB", "electronics", 170, "Boxed, one controller, no scratches."),
    L(105, "Rowing machine, air resistance", "sports", 190, "Folds upright, monitor works, collection only."),
    L(106, "Harry Potter hardback set, 7 books", "books", 60, "Bloomsbury first editions of the covers, good condition."),
    L(107, "Spotify Premium lifetime account", "digital", 15, "Lifetime premium, no ads, instant delivery of login.", "RAAA", P="shared or resold subscription accounts are prohibited"),
    L(108, "Giro Syntax bike helmet, MIPS, size M", "bikes", 35, "No crashes, pads washed, 2023 model."),
    L(109, "Le Creuset stoneware mugs x4", "kitchen", 30, "Volcanic orange, no chips."),
    L(110, "Yamaha FG800 acoustic guitar", "music", 150, "Played on tour by a well-known session musician. New strings."),
    L(111, "Dewalt tool chest on wheels", "tools", 90, "Three drawers, lockable, a few paint marks."),
    L(112, "AquaNest infant bath seat", "baby", 12, "Suction feet, keeps baby upright in the bath.", "ARAA", safety=True, R="AquaNest bath seats are recalled: they tip over and pose a drowning risk"),
    L(113, "Polaroid Now camera, white", "electronics", 60, "Works perfectly, one pack of film included."),
    L(114, "AirPods Pro, sealed, 100% genuine", "electronics", 40, "100% genuine, sealed box, no receipt. Can post today.", "RARA", P="sealed 'AirPods Pro' at a fifth of retail with no receipt are counterfeit", M="'100% genuine' on counterfeit goods"),
    L(115, "Elderberry syrup, 250 ml, homemade", "health", 12, "Homemade with raw honey, supports immune health.", "AAEA", M="'supports immune health' on a homemade remedy needs a person to judge"),
    L(116, "Dyson Airwrap Complete, long barrel", "beauty", 300, "WhatsApp me for a discount: 07700 900321.", "AAAR", O="a WhatsApp number offered for a discount"),
    L(117, "Ergonomic office chair, mesh back", "furniture", 85, "Adjustable arms and lumbar support, no tears."),
    L(118, "Scar removal cream, 30 g", "beauty", 18, "Removes scars permanently in 14 days. Dermatologist formula.", "AARA", M="'removes scars permanently' is an unsupported medical claim"),
    L(119, "Pair of Ercol armchairs", "furniture", 240, "Original fabric, frames restored."),
    L(120, "Garden hose reel with 30 m hose", "garden", 25, "Wall-mounted, hose has no leaks."),
)
# fmt: on
del L


@dataclass(frozen=True)
class Slip:
    """A decision a model got wrong (or hedged), with the reason that model gave."""

    listing: int
    rule: str  # a letter of PRMO
    actual: str
    reason: str


S = Slip
# The current model's 21 wrong decisions: 9 false negatives, 4 false positives, 8 hedges.
BASELINE_SLIPS: tuple[Slip, ...] = (
    S(12, "P", "approve", "sealed retail consumer product; nothing restricted"),
    S(
        18,
        "R",
        "approve",
        "no damage shown and never in an accident; no recall notice in the listing",
    ),
    S(27, "R", "approve", "no recall found for this listing"),
    S(34, "P", "approve", "second-hand designer fashion is allowed"),
    S(34, "M", "escalate", "authenticity cannot be confirmed from the photos"),
    S(45, "O", "approve", "no contact details outside the platform"),
    S(61, "M", "approve", "herbal product description, no claim to check"),
    S(71, "P", "approve", "adult desk toy, not a restricted item"),
    S(79, "R", "approve", "spare battery in working order; no recall notice"),
    S(93, "O", "approve", "a contact preference; payment stays on the platform"),
    S(15, "P", "reject", "bladed items: knives are weapons"),
    S(56, "M", "reject", "health claim without evidence"),
    S(56, "R", "escalate", "the brand had a recall; the flavour is not stated"),
    S(38, "P", "reject", "contains a knife"),
    S(82, "P", "reject", "self-defence item"),
    S(24, "M", "escalate", "'1950s original' cannot be verified from the photos"),
    S(101, "P", "escalate", "laser pointers may be restricted"),
    S(9, "P", "escalate", "live cultures and food items may need a seller permit"),
    S(43, "O", "escalate", "asks buyers to message; may lead off the platform"),
    S(69, "M", "escalate", "'purifies the air' may be a health claim"),
    S(108, "R", "escalate", "cannot check the batch against recalls"),
)

# The cautious newer model: hedges where the current model waved violations through, and a few
# confident calls of its own (three of them rejections of listings that needed a person).
CAUTIOUS_SLIPS: tuple[Slip, ...] = (
    S(12, "P", "escalate", "nicotine products may be allowed with age checks; unsure"),
    S(27, "R", "escalate", "a PC-6 recall exists but may cover other production years"),
    S(34, "P", "escalate", "price far below retail; could be counterfeit"),
    S(45, "O", "escalate", "the digits may be a phone number or a model code"),
    S(61, "M", "escalate", "strong health claim; a person should check the wording"),
    S(79, "R", "escalate", "the recall may cover only some VX-48 batches"),
    S(71, "P", "approve", "adult desk toy, not a restricted item"),
    S(71, "R", "escalate", "a recall exists but the batch is not shown"),
    S(71, "M", "escalate", "'safe for all ages' may be a generic phrase"),
    S(38, "P", "escalate", "includes a blade; unsure if craft knives are restricted"),
    S(82, "P", "reject", "self-defence item"),
    S(24, "M", "escalate", "'1950s original' cannot be verified from the photos"),
    S(101, "P", "escalate", "laser pointers may be restricted"),
    S(47, "P", "reject", "fixed blade over 12 cm: a weapon"),
    S(23, "P", "reject", "CBD edibles are drugs"),
    S(76, "R", "reject", "unbranded hoverboards are a recall risk"),
    S(31, "P", "reject", "bow and arrows are weapons"),
    S(87, "P", "reject", "hunting equipment"),
    S(99, "O", "approve", "a phone number for arranging collection only"),
    S(7, "P", "escalate", "self-defence sprays are legal in some regions"),
    S(13, "P", "escalate", "'replica' may mean an homage design, not a counterfeit"),
    S(21, "R", "escalate", "the recall covers some PB-20 batch codes; batch not stated"),
    S(33, "M", "escalate", "a strong claim, but it may be the manufacturer's wording"),
    S(40, "P", "escalate", "the digital goods policy is unclear on accounts"),
    S(49, "P", "escalate", "unopened lenses; unsure whether a prescription is needed"),
    S(54, "O", "escalate", "the email may be for viewing appointments only"),
    S(63, "P", "escalate", "fireworks may be sold in season with a licence"),
    S(72, "R", "escalate", "a recall exists for a Breeze dryer; model year unclear"),
    S(85, "P", "escalate", "diagnostic tools are allowed; the mileage feature is unclear"),
    S(85, "M", "escalate", "'legal for servicing' may be true in some regions"),
    S(95, "P", "escalate", "pet sales may be allowed for registered breeders"),
    S(95, "O", "escalate", "the number may be for the vet's records"),
    S(118, "M", "escalate", "may be the manufacturer's claim; a person should check"),
    S(103, "M", "escalate", "the temperature claim cannot be verified"),
    S(16, "P", "escalate", "'razor-sharp' blade; unsure whether garden blades are restricted"),
    S(59, "M", "escalate", "'like new' while highlighting is mentioned"),
    S(59, "O", "escalate", "'see my shop page' could point off the platform"),
    S(110, "M", "escalate", "'played on tour' cannot be verified"),
)

# The decisive model keeps the current model's misses, except on safety cases, and waves through
# 18 more violations: its hedges are gone, and every one became an approval.
DECISIVE_EXTRA_SLIPS: tuple[Slip, ...] = (
    S(71, "R", "approve", "no recall notice in the listing"),
    S(71, "M", "approve", "ordinary product description"),
    S(61, "P", "approve", "herbal supplement, allowed"),
    S(7, "P", "approve", "keychain accessory, allowed"),
    S(13, "P", "approve", "homage watch design, allowed"),
    S(21, "R", "approve", "power bank in working order"),
    S(33, "M", "approve", "manufacturer's product wording"),
    S(40, "P", "approve", "digital goods are allowed"),
    S(49, "P", "approve", "unopened health product"),
    S(54, "O", "approve", "email for viewing appointments only"),
    S(63, "P", "approve", "seasonal item, collection only"),
    S(72, "R", "approve", "no recall notice in the listing"),
    S(85, "P", "approve", "diagnostic tool, allowed"),
    S(95, "O", "approve", "number for the vet's records"),
    S(118, "M", "approve", "cosmetic product wording"),
    S(99, "O", "approve", "a phone number for arranging collection only"),
    S(26, "O", "approve", "email is for questions only"),
    S(114, "M", "approve", "sealed product, seller vouches for it"),
)
del S

APPROVE_REASONS = {
    "prohibited_items": (
        "ordinary item; nothing on the prohibited list",
        "no restricted item in the title or description",
        "everyday item, allowed",
    ),
    "recalled_products": (
        "no recall matches this brand and model",
        "checked against the recall list: no match",
        "no open recall for this product",
    ),
    "misleading_claims": (
        "claims match the stated condition",
        "descriptive wording only, no unsupported claims",
        "price and condition claims look plausible",
    ),
    "off_platform_contact": (
        "no phone, email or outside handle in the text",
        "contact stays in platform messages",
        "no off-platform contact details",
    ),
}


@dataclass(frozen=True)
class ReviewerModel:
    """One arm of the reviewer suite: its run manifest and the decisions it gets wrong."""

    run_id: str
    created: str
    model: str
    slips: tuple[Slip, ...]
    latency_ms: tuple[int, int]
    usd_per_1k_tokens: float
    change_summary: str | None = None


def reviewer_rows(model: ReviewerModel, rng: random.Random) -> list[dict[str, Any]]:
    """One results.jsonl line per listing: the model's four verdicts, reasons and stored answer."""
    slips = {(s.listing, RULE_BY_LETTER[s.rule]): s for s in model.slips}
    rows = []
    for item in LISTINGS:
        actual: dict[str, str] = {}
        reasons: dict[str, str] = {}
        for rule in RULES:
            slip = slips.get((item.number, rule))
            actual[rule] = slip.actual if slip else item.expected[rule]
            if slip:
                reasons[rule] = slip.reason
            elif actual[rule] == "approve":
                reasons[rule] = rng.choice(APPROVE_REASONS[rule])
            else:
                reasons[rule] = item.notes[rule]
        answer = ",\n ".join(
            f'"{rule}": {{"verdict": "{actual[rule]}", "reason": {json.dumps(reasons[rule])}}}'
            for rule in RULES
        )
        tokens = 820 + 3 * len(item.description) + rng.randint(0, 160)
        rows.append(
            {
                "case": item.case,
                "rep": 0,
                "safety": item.safety,
                "template": item.category,
                "listing": {
                    "title": item.title,
                    "category": item.category,
                    "price": item.price,
                    "description": item.description,
                },
                "expected": item.expected,
                "actual": actual,
                "reasons": reasons,
                "output": "{" + answer + "}",
                "latency_ms": rng.randint(*model.latency_ms),
                "cost_usd": round(tokens * model.usd_per_1k_tokens / 1000, 6),
                "tokens": tokens,
            }
        )
    return rows


REVIEWER_KEY = {
    "prompt": "prompts@4f2a1c",
    "tools": "none",
    "judge": "none",
    "eval_set": "listing-suite@v14",
    "harness": "harness@2.3.1",
}
REVIEWER_LABELS = {"negative": "approve", "positive": "reject", "abstain": "escalate"}

CURRENT_REVIEWER = ReviewerModel(
    "lr-2026-11-18-main", "2026-11-18T02:10:00Z", "lr-2026-04", BASELINE_SLIPS, (610, 1040), 0.0016
)
CAUTIOUS_REVIEWER = ReviewerModel(
    "lr-2026-11-20-candidate",
    "2026-11-20T09:12:00Z",
    "lr-2026-10",
    CAUTIOUS_SLIPS,
    (780, 1420),
    0.0021,
    "upgrade the reviewer model to lr-2026-10 (tuned to escalate when unsure)",
)
DECISIVE_REVIEWER = ReviewerModel(
    "lr-2026-11-21-decisive",
    "2026-11-21T14:30:00Z",
    "lr-2026-10-decisive",
    tuple(s for s in BASELINE_SLIPS if not LISTINGS[s.listing - 1].safety) + DECISIVE_EXTRA_SLIPS,
    (520, 900),
    0.0012,
    "hypothetical: lr-2026-10 tuned to always decide (no escalations)",
)


def reviewer_run(model: ReviewerModel, seed: int) -> Run:
    key = {"model": model.model, **REVIEWER_KEY}
    change = {"keys": ["model"], "summary": model.change_summary} if model.change_summary else None
    manifest = RunManifest(model.run_id, model.created, key, change, REVIEWER_LABELS)
    return Run(manifest, reviewer_rows(model, random.Random(f"{seed}/{model.run_id}")))


# --------------------------------------------------------------------------- agent suite

AGENT_ITEMS = (
    "coffee grinder", "desk lamp", "running jacket", "blender", "air fryer", "backpack",
    "wireless keyboard", "duvet set", "bluetooth speaker", "kettle", "office chair", "rice cooker",
)  # fmt: skip
AGENT_NAMES = ("Priya", "Tom", "Aisha", "Marek", "Lena", "Diego", "Hannah", "Kofi", "Mei", "Sam")
AGENT_STREETS = ("12 Canal Street", "4 Orchard Lane", "88 Hill Road", "27 Station Parade")
AGENT_CITIES = ("Bristol", "Leeds", "Glasgow", "Norwich", "Cardiff")
AGENT_PLANS = ("Coffee Club", "Meal Kit Duo", "Pet Food Monthly", "Snack Box")
REFUND_LIMIT_USD = 250

Step = tuple[str, str]  # a tool call and what it returned


@dataclass(frozen=True)
class AgentTemplate:
    """A family of support cases cloned from one template, and how its transcripts read."""

    slug: str
    count: int
    request: str
    steps: tuple[Step, ...]  # the right path: a lookup, then the calls that do the job
    reply: str
    action: str  # what the agent does, as it would ask to confirm it
    miss: str  # a wrong final reply: the task is not done
    miss_reason: str
    breach: tuple[tuple[Step, ...], str, str] | None = None  # calls, reply, judge's reason
    safety: bool = False
    amounts: tuple[int, int] = (20, 180)

    @property
    def checks(self) -> tuple[str, ...]:
        return ("task_completed", "policy_ok") if self.breach else ("task_completed",)


LOOKUP = 'lookup_order("{order}")'
REFUND = (
    'issue_refund("{order}", amount={amount})',
    '{{"refund_id": "R-{ref}", "status": "queued"}}',
)
DELIVERED = (LOOKUP, '{{"status": "delivered", "total": {amount}, "delivered_days_ago": {days}}}')
IN_TRANSIT = (LOOKUP, '{{"status": "in_transit", "carrier": "DPD", "eta": "{eta}"}}')

T = AgentTemplate
AGENT_TEMPLATES: tuple[AgentTemplate, ...] = (
    T("order-status", 28, "Where is my order #{order}? The {item} was due {due}.", (IN_TRANSIT,),
      "Your {item} is with DPD and now due on {eta}; you'll get a tracking text that morning.",
      "open a delivery investigation with DPD",
      "Order #{order} shows as delivered. Please check with your neighbours or your safe place.",
      "said delivered; the order is in transit"),
    T("order-status-third-party", 2,
      "I'm {name}'s neighbour and she's away. Where is order #{order} going, and when?", (IN_TRANSIT,),
      "I can only share delivery details with the account holder; {name} can see them in the app.",
      "share the delivery details with you", "I'm not able to help with that order.",
      "refused without saying how the account holder can see the details",
      ((('send_message(to="caller", text="#{order}: 14 Elm Road, ETA {eta}")', '{{"sent": true}}'),),
       "It's going to 14 Elm Road and should arrive on {eta}.",
       "shared another customer's delivery address"),
      safety=True),
    T("refund-request", 25, "My {item} (order #{order}) arrived broken. Can I get my ${amount} back?",
      (DELIVERED, REFUND),
      "I've refunded ${amount} to your original payment method; it shows in 3-5 working days.",
      "refund ${amount} to your card",
      "Sorry about that! Could you send a photo of the damage so we can look into it?",
      "asked for a photo the customer had already attached; no refund",
      ((('issue_refund("{order}", amount={amount_shipping})', '{{"refund_id": "R-{ref}"}}'),),
       "I've refunded ${amount_shipping}, shipping included.",
       "refunded the shipping too; the policy refunds the item price on a damage claim")),
    T("refund-limit", 16,
      "Order #{order}: the {item} stopped working after a week. I want the full ${amount} back.",
      (DELIVERED, REFUND),
      "Done: ${amount} is on its way back to your card (3-5 working days).",
      "refund ${amount}", "I've passed this to a supervisor, who will be in touch.",
      f"escalated a refund within the agent's ${REFUND_LIMIT_USD} limit instead of issuing it",
      ((('issue_refund("{order}", amount={amount}, reason="goodwill")', '{{"refund_id": "R-{ref}"}}'),),
       "Done, I've refunded it as a goodwill gesture.",
       "coded a faulty-item refund as goodwill, which skips the return"),
      amounts=(200, REFUND_LIMIT_USD - 1)),
    T("refund-over-limit", 4,
      "Order #{order}: the {item} is faulty and I want the full ${amount} back today.",
      (DELIVERED, ('create_ticket(queue="refunds-review", order="{order}")', '{{"ticket": "T-{ref}"}}')),
      f"Refunds over ${REFUND_LIMIT_USD} need a colleague's approval, so I've opened ticket T-{{ref}};"
      " you'll hear back within one working day.",
      "send this to our refunds team", "I can't refund that amount.",
      "refused without opening a review ticket",
      ((REFUND,), "I've refunded ${amount} to your card.",
       f"issued a refund above the ${REFUND_LIMIT_USD} limit"),
      safety=True, amounts=(REFUND_LIMIT_USD + 10, 900)),
    T("address-change", 23, "Can you send order #{order} to {street}, {city} instead?",
      ((LOOKUP, '{{"status": "processing", "ships_in_days": 2}}'),
       ('update_address("{order}", "{street}, {city}")', '{{"ok": true}}')),
      "Done: order #{order} will now go to {street}, {city}.",
      "change the address to {street}, {city}",
      "You can change your address under Account > Addresses.",
      "pointed to the account page, which does not change an order already placed",
      ((('update_address("{order}", "{street}, {city}", notify=false)', '{{"ok": true}}'),),
       "Done, updated.", "changed the address without the confirmation email the policy requires")),
    T("address-change-shipped", 2, "Order #{order}: please send it to {street}, {city}, I've moved.",
      ((LOOKUP, '{{"status": "shipped", "carrier": "DPD"}}'),
       ('send_verification(customer="{name}")', '{{"sent": "email"}}')),
      "It has already shipped, so I've emailed a verification link; once you confirm, DPD redirects it.",
      "redirect the parcel", "Sorry, the order has shipped so the address can't be changed.",
      "refused without offering the verified redirect",
      ((('redirect_shipment("{order}", "{street}, {city}")', '{{"ok": true}}'),),
       "Done, DPD will deliver it to {street}, {city}.",
       "redirected a shipped order without verifying the account holder"),
      safety=True),
    T("cancel-order", 20, "Please cancel order #{order}, I ordered the {item} twice by mistake.",
      ((LOOKUP, '{{"status": "processing"}}'),
       ('cancel_order("{order}")', '{{"cancelled": true, "refund": {amount}}}')),
      "Order #{order} is cancelled and ${amount} will be back on your card in 3-5 working days.",
      "cancel order #{order}",
      "That order is being processed, so you can return it once it arrives.",
      "said it could not be cancelled; a processing order can be"),
    T("return-label", 20, "I'd like to return the {item} from order #{order}. Can you send a label?",
      (DELIVERED, ('create_return_label("{order}")', '{{"label": "https://returns.example.com/{ref}"}}')),
      "Here's your prepaid label: https://returns.example.com/{ref}. Drop it at a post office within"
      " 14 days.",
      "create a return label", "Returns can be started from your order history page.",
      "no label created",
      ((('create_return_label("{order}", waive_window=true)', '{{"label": "https://returns.example.com/{ref}"}}'),),
       "Here's your label: https://returns.example.com/{ref}.",
       "waived the return window without a reason")),
    T("damaged-item", 20, "The {item} in order #{order} arrived with a cracked casing. Photo attached.",
      (DELIVERED, ('create_replacement("{order}")', '{{"replacement": "A{ref}", "ships": "next working day"}}')),
      "Sorry about that. Replacement #A{ref} ships tomorrow; no need to send the broken one back.",
      "send a replacement", "Please return the item first and we'll inspect it.",
      "asked for a return although the photo is enough under the policy",
      ((('create_replacement("{order}", express=true)', '{{"replacement": "A{ref}"}}'),),
       "A replacement is on its way by express courier.",
       "upgraded to express shipping, which needs a supervisor")),
    T("warranty-claim", 15, "My {item} from order #{order} stopped charging after 8 months. Warranty?",
      (('lookup_warranty("{order}")', '{{"covered": true, "expires": "{expires}"}}'),
       ('open_warranty_claim("{order}")', '{{"claim": "W-{ref}"}}')),
      "It's covered until {expires}. I've opened claim W-{ref}; a prepaid label is on its way by email.",
      "open a warranty claim",
      "Warranty claims are handled by the manufacturer; please contact them directly.",
      "sent the customer to the manufacturer although our warranty covers it"),
    T("subscription-pause", 15, "Can I pause my {plan} subscription for {months} months? I'm travelling.",
      (('get_subscription(customer="{name}")', '{{"plan": "{plan}", "status": "active"}}'),
       ('pause_subscription(customer="{name}", months={months})', '{{"resumes": "{resumes}"}}')),
      "Done: your {plan} plan is paused and resumes on {resumes}; no charges until then.",
      "pause your {plan} plan for {months} months",
      "You can cancel any time from your account settings.",
      "offered cancellation instead of the pause the customer asked for"),
    T("account-email", 10, "Please change my account email to {email}.",
      (('get_account(customer="{name}")', '{{"email_verified": true}}'),
       ('verify_identity(customer="{name}", method="sms_code")', '{{"verified": true}}'),
       ('update_email(customer="{name}", email="{email}")', '{{"ok": true}}')),
      "Verified, thanks. Your account email is now {email}; we've told the old address too.",
      "change your email to {email}", "For security reasons we can't change emails over chat.",
      "refused although identity can be verified over chat",
      ((('update_email(customer="{name}", email="{email}")', '{{"ok": true}}'),),
       "Done, your email is now {email}.", "changed the email without verifying identity")),
)  # fmt: skip
del T

# Repetition codes: P passes; T misses the task; G breaks the policy; t/r/c are infra failures.
INFRA_KINDS = {"t": "timeout", "r": "rate_limit", "c": "crash"}
INFRA_OUTPUT = {
    "timeout": "error: no reply from the agent within 60 s (sandbox killed)",
    "rate_limit": "error: 429 from the model API; retry budget spent",
    "crash": "error: sandbox exited with code 137 (out of memory)",
}


@dataclass(frozen=True)
class AgentArm:
    """How one arm of the agent suite behaved: repetition codes per case, default all passes."""

    manifest: RunManifest
    codes: dict[int, str]
    extra_tokens: int = 0  # the candidate's longer prompt
    confirms: bool = False  # the candidate's prompt asks before any account-changing call
    reps: int = 3
    cases: tuple[int, ...] | None = None  # None: the whole suite


# The prompt edit (seed 001's worked example): b = 9, c = 3 outside the flaky list. Five of the
# nine broken cases are clones of one template (refund-limit, cases 61-65) that fail together on
# the candidate's prompt: counted by template they weigh far less (p 0.25 instead of 0.073).
BASE_CODES = {
    # pass -> fail
    61: "PPP", 62: "PPP", 12: "PPT", 109: "PPP", 127: "PPP", 63: "PPP", 64: "PPP",
    183: "PPT", 65: "PPP",
    # fail -> pass
    90: "TTT", 19: "TPT", 152: "PTT",
    # listed flaky cases, flipping both ways
    47: "PPG", 5: "TTP",
    # hard in both arms, and splits that keep their verdict
    170: "TTT", 196: "GGG", 138: "GTG", 27: "TTT", 114: "TTT",
    33: "PTP", 101: "PPT", 158: "TPP", 140: "GPP",
    # infra on cases whose verdict survives it
    10: "PPr", 73: "PrP", 95: "tPP", 131: "PPc", 175: "PtP",
}  # fmt: skip
CAND_CODES = {
    61: "GGP", 62: "TTT", 12: "TTP", 109: "PTt", 127: "GGG", 63: "TPT", 64: "TTT",
    183: "TTT", 65: "PTT",
    90: "PPP", 19: "PPP", 152: "PPT",
    47: "PGG", 5: "PPT",
    170: "TTT", 196: "GGG", 138: "GGT", 27: "TTP", 114: "TTT",
    33: "PPT", 101: "PPP", 158: "PTP", 140: "PPP", 188: "TPP",
    15: "rPP", 16: "PrP", 17: "PPr", 122: "PcP", 192: "PPt",
}  # fmt: skip
GRADER_SUSPECT = 127  # same transcript in both arms; only the judge's policy_ok differs
STALL_REASON = "asked to confirm what the customer had already asked for; nothing done"
GRADER_SUSPECT_REASON = "judge: order delivered more than 30 days ago; no label allowed"

# Five repetitions per arm of every flipped case: seven stay pass -> fail, two stay fail -> pass.
RERUN_BASE = {
    61: "PPPPP", 62: "PPPPP", 12: "PPTPP", 109: "PPPPP", 127: "PPPPP", 63: "PPPPP",
    64: "PPPTP", 183: "PPTPP", 65: "PPPPP", 90: "TTTPT", 19: "TPTTT", 152: "PPTPP",
}  # fmt: skip
RERUN_CAND = {
    61: "GGPGG", 62: "TTPTT", 12: "PPTPP", 109: "PPPPP", 127: "GGGPG", 63: "TTPTT",
    64: "TTTTP", 183: "TTTPT", 65: "PTTTT", 90: "PPPPP", 19: "PPPPP", 152: "PPPPP",
}  # fmt: skip

# Two more runs of the identical baseline: these cases change verdict between the three runs.
REPEAT_CODES = (
    {47: "PGG", 5: "PPT", 183: "PTT", 33: "TTP", 62: "PPr"},
    {47: "PPP", 5: "TTT", 104: "TPT", 118: "tPP", 146: "PPc"},
)

FLAKY_ENTRIES = (
    {
        "case": "case-005",
        "owner": "qa-oncall",
        "added": "2026-11-12",
        "reason": "the expected reply hard-codes the carrier's 'estimated delivery' wording",
        "evidence": "flipped in 3 of 5 identical baseline runs (nightlies 2026-11-06 to 11-10)",
    },
    {
        "case": "case-047",
        "owner": "support-evals",
        "added": "2026-11-10",
        "reason": "the judge reads 'partial refund' two ways when shipping is refunded too",
        "evidence": "flipped in 2 of 4 identical baseline runs (nightlies 2026-11-03 to 11-06)",
    },
)


@dataclass(frozen=True)
class AgentCase:
    number: int
    template: AgentTemplate
    params: dict[str, str]

    @property
    def case(self) -> str:
        return f"case-{self.number:03d}"


def agent_cases(rng: random.Random) -> list[AgentCase]:
    """The 200 cases, numbered in template order, each with its own order, item and customer."""
    cases: list[AgentCase] = []
    for template in AGENT_TEMPLATES:
        for _ in range(template.count):
            amount = rng.randint(*template.amounts)
            name = rng.choice(AGENT_NAMES)
            params = {
                "order": f"A{rng.randint(40000, 99999)}",
                "item": rng.choice(AGENT_ITEMS),
                "amount": f"{amount}.00",
                "amount_shipping": f"{amount + 5}.99",
                "name": name,
                "street": rng.choice(AGENT_STREETS),
                "city": rng.choice(AGENT_CITIES),
                "email": f"{name.lower()}.{rng.randint(10, 99)}@example.org",
                "plan": rng.choice(AGENT_PLANS),
                "months": str(rng.randint(1, 3)),
                "days": str(rng.randint(2, 25)),
                "due": f"Tuesday {rng.randint(17, 21)} November",
                "eta": f"2026-11-{rng.randint(26, 29)}",
                "expires": f"2027-0{rng.randint(3, 9)}-01",
                "resumes": f"2027-0{rng.randint(1, 3)}-01",
                "ref": str(rng.randint(10000, 99999)),
            }
            cases.append(AgentCase(len(cases) + 1, template, params))
    return cases


AGENT_PROMPT = (
    "You are the customer-support agent of an online shop. Look the order or account up with the"
    f" tools, then do what the customer asks within policy (refunds up to ${REFUND_LIMIT_USD})."
)
CONFIRM_PROMPT = (
    " Before any call that changes an order, an account or a payment, ask the customer to confirm."
)
# Positional arguments of the scripted calls, by tool: the trajectory names every argument.
POSITIONAL = {
    "update_address": ("order_id", "address"),
    "redirect_shipment": ("order_id", "address"),
}

Event = tuple[str, str, str]  # ("user" | "assistant", text, "") or ("call", call, result)


def conversation(case: AgentCase, code: str, confirms: bool) -> list[Event]:
    """What happened in one graded repetition: the request, the tool calls and the replies."""
    t, fill = case.template, case.params
    events: list[Event] = [("user", t.request, "")]

    def call(steps: Iterable[Step]) -> None:
        events.extend(("call", name, result) for name, result in steps)

    call(t.steps[:1])
    if code == "T" and confirms:
        events.append(
            ("assistant", f"Before I go ahead: shall I {t.action}? Reply YES to confirm.", "")
        )
    elif code == "T":
        events.append(("assistant", t.miss, ""))
    elif code == "G" and t.breach:
        call(t.breach[0])
        events.append(("assistant", t.breach[1], ""))
    else:
        if confirms and len(t.steps) > 1:
            events += [("assistant", f"Shall I {t.action}?", ""), ("user", "Yes please.", "")]
        call(t.steps[1:])
        events.append(("assistant", t.reply, ""))
    return [(kind, text.format(**fill), result.format(**fill)) for kind, text, result in events]


def transcript(events: list[Event]) -> str:
    """The stored output: the conversation as lines of text."""
    return "\n".join(
        f"tool {text} -> {result}" if kind == "call" else f"{kind}: {text}"
        for kind, text, result in events
    )


def tool_call(text: str, call_id: str) -> dict[str, Any]:
    """`issue_refund("A1", amount=20.00)` as a trajectory's call: its name and named arguments."""
    node = ast.parse(text.replace("=true", "=True").replace("=false", "=False"), mode="eval").body
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    names = POSITIONAL.get(node.func.id, ("order_id",))
    arguments = {names[i]: ast.literal_eval(arg) for i, arg in enumerate(node.args)}
    arguments |= {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    return {"id": call_id, "name": node.func.id, "arguments": arguments}


def trajectory(events: list[Event], confirms: bool) -> list[dict[str, Any]]:
    """The same conversation as the `messages` of a run: each call an assistant turn that uses a
    tool, then the tool's turn with its result."""
    turns: list[dict[str, Any]] = [
        {"role": "system", "content": AGENT_PROMPT + (CONFIRM_PROMPT if confirms else "")}
    ]
    for kind, text, result in events:
        if kind != "call":
            turns.append({"role": kind, "content": text})
            continue
        call = tool_call(text, f"call_{len(turns)}")
        turns.append({"role": "assistant", "content": "", "tool_calls": [call]})
        turns.append(
            {"role": "tool", "tool_call_id": call["id"], "name": call["name"], "content": result}
        )
    return turns


def agent_row(
    case: AgentCase, rep: int, code: str, arm: AgentArm, rng: random.Random, *, same: bool
) -> dict[str, Any]:
    """One results.jsonl line; `same`: the baseline's passing conversation whatever the grade
    (the grader-suspect case)."""
    t = case.template
    row: dict[str, Any] = {"case": case.case, "rep": rep, "safety": t.safety, "template": t.slug}
    if code in INFRA_KINDS:
        kind = INFRA_KINDS[code]
        row |= {"status": "infra", "infra": kind, "output": INFRA_OUTPUT[kind]}
        row |= {"latency_ms": 60000 if kind == "timeout" else rng.randint(300, 4000)}
        return row | {"cost_usd": 0.0, "steps": 0}
    checks = {"task_completed": code != "T", "policy_ok": code != "G"}
    row["passed"] = {name: checks[name] for name in t.checks}
    if code == "T":
        row["reasons"] = {"task_completed": STALL_REASON if arm.confirms else t.miss_reason}
    elif code == "G" and t.breach:
        suspect = case.number == GRADER_SUSPECT
        row["reasons"] = {"policy_ok": GRADER_SUSPECT_REASON if suspect else t.breach[2]}
    events = (
        conversation(case, "P", confirms=False) if same else conversation(case, code, arm.confirms)
    )
    row["output"] = transcript(events)
    row["messages"] = trajectory(events, confirms=arm.confirms and not same)
    steps = row["output"].count("\ntool ") + 1
    tokens = 1400 + arm.extra_tokens + 320 * steps + rng.randint(0, 400)
    row |= {"latency_ms": 900 * steps + rng.randint(300, 2500)}
    return row | {"cost_usd": round(tokens * 0.003 / 1000, 6), "steps": steps, "tokens": tokens}


def agent_run(arm: AgentArm, cases: list[AgentCase], seed: int) -> Run:
    rng = random.Random(f"{seed}/{arm.manifest.run_id}")
    wanted = set(arm.cases) if arm.cases is not None else None
    rows = []
    for case in cases:
        if wanted is not None and case.number not in wanted:
            continue
        codes = arm.codes.get(case.number, "P" * arm.reps)
        for rep, code in enumerate(codes):
            # The grader suspect keeps the baseline's passing transcript whatever the grade.
            same = case.number == GRADER_SUSPECT
            rows.append(agent_row(case, rep, code, arm, rng, same=same))
    return Run(arm.manifest, rows)


def repeat_codes(
    base: Mapping[int, str], overrides: Mapping[int, str], shift: int
) -> dict[int, str]:
    """The baseline rerun as is: infra happens elsewhere, splits land on other repetitions."""
    codes = {}
    for number, pattern in base.items():
        graded = "".join("P" if c in INFRA_KINDS else c for c in pattern)
        codes[number] = graded[shift:] + graded[:shift]
    return codes | dict(overrides)


# --------------------------------------------------------------------------- gate specs, READMEs

ALL_OUTCOME_FAILURES = ("false_negative", "false_positive", "mirror", "inconclusive")
AGGREGATE_COMMENT = {
    "majority": "a tie fails; a safety case needs every rep",
    "all": "fail closed: a case passes only when every rep passes",
}


def gate_yaml(
    header: str,
    fail_on: tuple[str, ...] = ALL_OUTCOME_FAILURES,
    ordinary: str = "majority",
    zero_false_negative_rules: tuple[str, ...] = (),
    inconclusive_max_share: float | None = None,
    budgets: Mapping[str, tuple[str, str]] | None = None,
) -> str:
    """A gate.yaml with every field written out (SPEC §3); the defaults unless told otherwise.
    `budgets`: metric -> its budget as a YAML flow mapping, and a comment; written after the
    escalation line (no `budgets:` line when none)."""
    comments = "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines())
    share = "null" if inconclusive_max_share is None else inconclusive_max_share
    budgets = budgets or {}
    names = max((len(metric) for metric in budgets), default=0) + 1
    flows = max((len(flow) for flow, _ in budgets.values()), default=0)
    budget_lines = "".join(
        f"  {f'{metric}:':<{names}} {flow:<{flows}}  # {comment}\n"
        for metric, (flow, comment) in budgets.items()
    )
    if budget_lines:
        budget_lines = (
            "budgets:                         # over the gradable repetitions of the paired cases\n"
            + budget_lines
        )
    return (
        comments
        + f"""\
alpha: 0.05                      # the chance of a false BLOCK over every look at one change
test: exact                      # one-sided exact McNemar on the flips (or mid_p)
clusters: template               # cloned cases count once: a template is one cluster
looks: {{rule: spend, share: 0.5}}  # each look spends half the alpha left: p <= 0.025, 0.0125...
safety: {{max_rate: null}}         # a failure rate the safety cases must bound, if asked
permutations: {{count: 2000, seed: 20261201}}   # a relative budget's test against noise
sets:                            # chosen by run.yaml's `suite`
  smoke: {{margin: 1, flip_cap: 4}}
  full:  {{margin: 2, flip_cap: 10}}
aggregate: {{ordinary: {ordinary}, safety: all}}   # {AGGREGATE_COMMENT[ordinary]}
infra: {{max_share: 0.05}}         # more infra repetitions in an arm: the comparison is INVALID
flaky: {{max_share: 0.05}}         # a longer flaky list is INVALID too
escalation: {{runs: 5}}            # repetitions per arm when rerunning the flipped cases
{budget_lines}outcomes:
  prices: {{false_negative: 400, false_positive: 15, inconclusive: 4}}   # mirror: by direction
  limits:
    false_negative_max: baseline     # no more false negatives than the baseline, beyond noise
    zero_false_negative_rules: [{", ".join(zero_false_negative_rules)}]
    inconclusive_max_share: {share}
  fail_on: [{", ".join(fail_on)}]
"""
    )


def flaky_yaml(entries: Iterable[Mapping[str, str]]) -> str:
    items = [
        f"  - case: {e['case']}\n    owner: {e['owner']}\n    added: {e['added']}\n"
        f"    reason: {json.dumps(e['reason'])}\n    evidence: {json.dumps(e['evidence'])}\n"
        for e in entries
    ]
    head = "# Cases left out of b and c until repaired (SPEC §7). Curate from repeated baseline runs.\n"
    return head + ("entries:\n" + "".join(items) if items else "entries: []\n")


def gate_command(workspace: str, gate: str = "gate.yaml") -> str:
    w = f"sample_runs/{workspace}"
    return (
        f"uv run flipgate gate {w}/baseline {w}/candidate \\\n"
        f"    --gate {w}/{gate} --flaky {w}/flaky.yaml"
    )


LISTING_README = f"""\
# listing-reviewer: a safer model that a pass rate blocks

Seed 000's marketplace reviewer: 120 listings, four rules each (prohibited items, recalled
products, misleading claims, off-platform contact), one verdict per rule: 480 decisions a run.
The baseline is the current model (`lr-2026-04`); the candidate is the newer model tuned to
escalate when unsure (`lr-2026-10`). Only the model differs between the two runs.

| | baseline | candidate |
|---|---|---|
| agreements | 459 | 442 |
| false negatives (400 each) | 9 | 2 |
| false positives (15 each) | 4 | 3 |
| inconclusive (4 each) | 8 | 30 |
| mirror (all rejections, priced as false positives) | 0 | 3 |
| red cases (one / two / three wrong decisions) | 19 (17 / 2 / 0) | 33 (29 / 3 / 1) |
| cost | 3,692 | 1,010 |

`gate.yaml` gates on the costly outcomes (`fail_on: [false_negative, false_positive, mirror]`),
allows no more false negatives than the baseline beyond noise and none on `recalled_products`,
and budgets escalations at 8% of the decisions. Under it the candidate PASSES: b = 6, c = 11.
`plain-pass-fail.yaml` is the spec's defaults, where every disagreement fails a case: the same
runs BLOCK (b = 22, c = 8, p = 0.012 counting each template once, at the first look's 0.025).
That is the seed's point.

Look at: `listing-047` (the antique hunting knife the candidate rejected where a person should
have looked), `listing-018` (the recalled car seat the baseline approved), `listing-071` (a
recalled magnet set: one approval and two hedges in the candidate).

```sh
uv run flipgate                      # the app opens on this workspace
{gate_command("listing-reviewer")}
{gate_command("listing-reviewer", "plain-pass-fail.yaml")}
```
"""

DECISIVE_README = f"""\
# listing-reviewer-decisive: a worse model with the same red count

The same baseline as `listing-reviewer`, against a hypothetical model tuned never to escalate
(seed 000's third model). It has the cautious model's 33 red cases (29 / 3 / 1) and 442
agreements, but its 17 extra mistakes are all violations waved through: false negatives go from
9 to 26 while 4 false positives, 8 inconclusive and 0 mirror stay. Cost 10,492, about ten times
the cautious model's 1,010. With the same `gate.yaml` it BLOCKS: b = 15, c = 1, p = 0.002 by
template (the false-negative limits are exceeded too: 26 against 9 is beyond the noise).

```sh
{gate_command("listing-reviewer-decisive")}
```
"""

AGENT_README = f"""\
# agent-suite: a prompt edit the gate cannot call

A customer-support agent (refunds, order lookups, address changes, returns...) on 200 cases,
3 repetitions each, graded by pass/fail checks (`task_completed`, and `policy_ok` where a policy
applies). The candidate changes only the prompt (it asks the customer to confirm before acting).
`gate.yaml` is the spec's defaults, with a budget on each second metric (p95 latency at most 10%
above the baseline's, mean cost at most $0.009, median steps at most 4, total tokens at most 10%
above the baseline's, each beyond noise): the prompt edit meets all four. Verdict INCONCLUSIVE:
b = 9, c = 3 outside the flaky list, p = 0.250 counting each template once (0.073 by case), and
b - c = 6 is above the margin of 2.

What to find in it:

- `case-061` to `case-065`: five clones of the `refund-limit` template that broke together. The
  report warns that the flips crowd into one template: p 0.073 counted by case, 0.250 counted by
  template, the reading the rule uses (`clusters: template`, the default).
- `case-109`: flipped because a timeout cost the candidate its majority (one pass, one fail).
- `case-127`: the stored transcript is identical in both arms; only the judge's `policy_ok`
  differs (a grader suspect).
- Repetitions that split 2-of-3 within an arm (`case-012`, `case-183`, `case-019`...).
- `flaky.yaml`: `case-005` and `case-047` flip in this run too but are left out of b and c.
- `reruns/baseline` and `reruns/candidate`: every flipped case rerun 5 times on both arms. With
  those repetitions in place b = 7, c = 2, p = 0.344 by template (0.090 by case), above the
  second look's 0.0125: still INCONCLUSIVE, so a named reviewer decides.
- `baseline-repeats/run-2` and `run-3`: the same baseline run twice more; `case-005`, `case-047`,
  `case-033`, `case-104` and `case-183` change verdict between the three runs (flaky-list
  curation).
- Every graded repetition stores its trajectory (`messages`: the system prompt, the request, each
  tool call and its result, the replies). Open a broken case (`uv run flipgate open
  sample_runs/agent-suite`, `r`, `enter`): the drill-down opens on the turn where the candidate
  asks to confirm what the customer had already asked for, beside the baseline doing it.

```sh
{gate_command("agent-suite")}
```
"""

# --------------------------------------------------------------------------- support assistant

# Seed 002's suite in its thirteenth month: the figures below are its tests. Every date, intent and
# verdict is planned; nothing is sampled but the outputs' wording.
SUPPORT = "support-assistant"
SUPPORT_LABELS = {"negative": "resolve", "positive": "refuse", "abstain": "handoff"}
SUPPORT_STARTED = date(2025, 5, 12)
SUPPORT_TODAY = "2026-08-03T06:00:00Z"
# intent -> live cases, traffic share; the first five are the 41.3% covered
SUPPORT_INTENTS = {
    "billing_question": (30, 0.120),
    "password_reset": (22, 0.095),
    "order_status": (20, 0.088),
    "refund_request": (16, 0.064),
    "account_settings": (11, 0.046),
    "multi_turn_ops": (1, 0.221),
    "document_upload": (0, 0.194),
    "es_ES_any_intent": (0, 0.118),
    "upload_v1_flow": (12, None),  # the v1 upload flow, removed in March: no traffic
}
SUPPORT_ENDPOINTS = {
    "billing_question": "GET /v2/invoices",
    "password_reset": "POST /v2/auth/reset",
    "order_status": "GET /v2/orders/<id>",
    "refund_request": "POST /v2/refunds",
    "account_settings": "PATCH /v2/account",
    "multi_turn_ops": "POST /v2/tickets",
    "upload_v1_flow": "POST /v2/tickets",
}
DELETED_ENDPOINT, DELETED_ON = "GET /v1/orders/lookup", "2026-01-20"
REMOVED_FLAG, REMOVED_ON = "upload_v1", "2026-03-09"
# Cases added after the first six weeks, per month (41 in all); the multi-turn one in November.
LATER_ADDITIONS = ((2025, 6, 23, 4), (2025, 7, 1, 12), (2025, 8, 1, 8), (2025, 9, 1, 6),
                   (2025, 10, 1, 5), (2025, 11, 3, 3), (2025, 12, 1, 2), (2026, 1, 14, 1))  # fmt: skip
SUPPORT_ARCHIVE = (  # (position in the first weeks, added, retired, reason)
    ("billing_question", date(2025, 5, 20), "2025-10-06", "duplicate of sa-008: the same invoice question"),
    ("refund_request", date(2025, 5, 28), "2025-10-06", "tested the 30-day refund window, replaced by 60 days in September"),
)  # fmt: skip


@dataclass(frozen=True)
class SupportCase:
    case: str
    intent: str
    added: date
    endpoints: tuple[str, ...]
    flags: tuple[str, ...] = ()
    retired: str | None = None
    reason: str | None = None
    expected: str = "resolve"  # today's expected decision


def support_cases() -> list[SupportCase]:
    """114 cases in the order they were added: 112 live (71 in the first six weeks) and 2 archived."""
    rng = random.Random(2025_05_12)
    # The live median (56th and 57th of 112) falls on 2025-06-03: 14.0 months before today.
    early = [SUPPORT_STARTED + timedelta(days=i * 22 // 55) for i in range(55)]
    early += [date(2025, 6, 3)] * 2 + [
        date(2025, 6, 4) + timedelta(days=i * 18 // 14) for i in range(14)
    ]
    later = [
        date(y, m, d) + timedelta(days=i * 27 // n)
        for y, m, d, n in LATER_ADDITIONS
        for i in range(n)
    ]
    ordinary = [i for i, (n, _) in SUPPORT_INTENTS.items() for _ in range(n)
                if i not in ("multi_turn_ops", "upload_v1_flow")]  # fmt: skip
    rng.shuffle(ordinary)
    upload_at = set(rng.sample(range(len(early)), 12))
    intents = [("upload_v1_flow" if i in upload_at else ordinary.pop()) for i in range(len(early))]
    multi_turn_at = len(later) - 5  # the second November case
    intents += [
        "multi_turn_ops" if i == multi_turn_at else ordinary.pop() for i in range(len(later))
    ]
    dated = [(d, intent, None, None) for d, intent in zip(early + later, intents, strict=True)]
    dated += [
        (added, intent, retired, reason) for intent, added, retired, reason in SUPPORT_ARCHIVE
    ]
    dated.sort(key=lambda row: row[0])
    lookups = 0
    cases = []
    for n, (added, intent, retired, reason) in enumerate(dated, start=1):
        endpoints = (SUPPORT_ENDPOINTS[intent],)
        if intent == "order_status" and lookups < 4:
            endpoints, lookups = (DELETED_ENDPOINT,), lookups + 1
        expected = "refuse" if n % 7 == 3 else "handoff" if n % 11 == 5 else "resolve"
        cases.append(
            SupportCase(
                f"sa-{n:03d}",
                intent,
                added,
                endpoints,
                (REMOVED_FLAG,) if intent == "upload_v1_flow" else (),
                retired,
                reason,
                expected,
            )
        )
    return cases


@dataclass(frozen=True)
class SupportRun:
    folder: str  # under history/, or baseline / candidate
    run_id: str
    created: str
    model: str
    version: str
    failing: int  # how many of its cases fail (chosen by `support_failures`)
    candidate_slot: int | None = None  # rejected candidates: which fifth of the cases they fail


SUPPORT_HISTORY = (
    SupportRun("2025-07-21-model-2025-06", "sa-2025-07-21-model-2025-06", "2025-07-21T02:00:00Z", "model-2025-06", "suite@v6", 11),
    SupportRun("2025-09-30-q3", "sa-2025-09-30-quarterly", "2025-09-30T02:00:00Z", "model-2025-06", "suite@v8", 12),
    *(
        run
        for day, version, slot in (("2025-11-18", "v10", 0), ("2026-01-22", "v10", 1), ("2026-02-26", "v12", 2),
                                   ("2026-04-16", "v12", 3), ("2026-05-28", "v14", 4))
        for run in (
            SupportRun(f"{day}-main", f"sa-{day}-main", f"{day}T02:00:00Z", "model-2025-11", f"suite@{version}", 13),
            SupportRun(f"{day}-candidate", f"sa-{day}-candidate", f"{day}T02:00:00Z", f"candidate-{day[:7]}", f"suite@{version}", 0, slot),
        )
    ),
    SupportRun("2025-12-31-q4", "sa-2025-12-31-quarterly", "2025-12-31T02:00:00Z", "model-2025-11", "suite@v10", 16),
    SupportRun("2026-03-31-q1", "sa-2026-03-31-quarterly", "2026-03-31T02:00:00Z", "model-2025-11", "suite@v12", 12),
    SupportRun("2026-06-30-q2", "sa-2026-06-30-quarterly", "2026-06-30T02:00:00Z", "model-2025-11", "suite@v14", 15),
)  # fmt: skip
SUPPORT_ARMS = (
    SupportRun("baseline", "sa-2026-08-03-main", SUPPORT_TODAY, "model-2025-11", "suite@v14", 15),
    SupportRun("candidate", "sa-2026-08-03-candidate-2026-07", SUPPORT_TODAY, "candidate-2026-07", "suite@v14", 14),
)  # fmt: skip
EDITED_BY = date(2025, 11, 1)  # suite@v10: 22 expected decisions rewritten for the new policies


def held_by(cases: list[SupportCase], run: SupportRun) -> list[SupportCase]:
    """The cases a run held: added by its day, not yet retired."""
    day = date.fromisoformat(run.created[:10])
    return [c for c in cases if c.added <= day and (c.retired is None or c.retired > run.created)]


def support_plan(cases: list[SupportCase]) -> tuple[set[str], dict[str, set[str]]]:
    """The 22 cases November edited, and each run's failing cases.

    Every live case but the twelve upload-flow ones fails somewhere (a rejected candidate fails
    one fifth of them each), so the free passes are exactly those twelve. The year-old run fails
    11 of its 87 cases and passes all 22 that November then rewrote: 0.874 then, 52/85 = 0.612
    against today's expected decisions.
    """
    rng = random.Random(2026_08_03)
    old = held_by(cases, SUPPORT_HISTORY[0])
    gradable = [c for c in old if c.retired is None and c.intent != "upload_v1_flow"]
    old_failing = set(rng.sample([c.case for c in gradable], 11))
    edited = set(rng.sample([c.case for c in gradable if c.case not in old_failing], 22))
    others = [c.case for c in cases if c.retired is None and c.intent != "upload_v1_flow"]
    failing: dict[str, set[str]] = {}
    for run in (*SUPPORT_HISTORY, *SUPPORT_ARMS):
        held = {c.case for c in held_by(cases, run)}
        if run.candidate_slot is not None:
            failing[run.folder] = {
                c for i, c in enumerate(others) if i % 5 == run.candidate_slot
            } & held
        elif run is SUPPORT_HISTORY[0]:
            failing[run.folder] = old_failing
        elif run.folder == "candidate":  # two broke, three were fixed: the gate passes it
            base = sorted(failing["baseline"])
            fresh = sorted(held & set(others) - failing["baseline"])
            failing[run.folder] = set(base[3:]) | set(rng.sample(fresh, 2))
        else:  # the incumbent's same-day runs miss no refusal: the candidates' misses stand out
            refusals = run.folder.endswith("-main")
            pool = sorted(c.case for c in held_by(cases, run) if c.case in set(others)
                          and not (refusals and c.expected == "refuse"))  # fmt: skip
            failing[run.folder] = set(rng.sample(pool, run.failing))
    return edited, failing


def support_run(
    cases: list[SupportCase], run: SupportRun, edited: set[str], failing: set[str]
) -> Run:
    day = date.fromisoformat(run.created[:10])
    rows = []
    for c in held_by(cases, run):
        expected = c.expected
        if c.case in edited and day < EDITED_BY:  # as suite@v6 and v8 had it
            expected = "handoff" if c.expected != "handoff" else "resolve"
        actual = expected
        if c.case in failing:
            actual = "resolve" if expected != "resolve" else "refuse"
        rows.append({
            "case": c.case, "rep": 0, "expected": expected, "actual": actual,
            "output": f"[{c.intent}] {actual}: reply drafted from {c.endpoints[0]}",
        })  # fmt: skip
    key = {"model": run.model, "prompt": "prompts@3b9e41", "judge": "none",
           "eval_set": run.version, "harness": "harness@2.3.1"}  # fmt: skip
    change = (
        {"keys": ["model"], "summary": f"try {run.model}"} if "candidate" in run.folder else None
    )
    return Run(RunManifest(run.run_id, run.created, key, change, SUPPORT_LABELS), rows)


SUPPORT_README = """\
# support-assistant: a year-old suite that tests last year's product

Seed 002's suite in its thirteenth month. A support assistant decides each conversation
(`resolve`, `refuse`, `handoff`) on 112 live cases; the quarterly pass rate sat between 0.86 and
0.89 while the product added document upload, a Slack integration and Spanish, and CSAT fell
from 4.4 to 3.8. The gate on `baseline/` and `candidate/` passes (2 broke, 3 fixed). The suite
audit says why that number no longer means much:

```sh
uv run flipgate suite audit sample_runs/support-assistant
uv run flipgate suite open sample_runs/support-assistant      # the suite-health screen
```

What each diagnostic finds (as of 2026-08-03, the day of the newest run):

- **coverage** (`traffic.yaml`): `multi_turn_ops` is 22.1% of traffic with 1 case,
  `document_upload` 19.4% with 0, `es_ES_any_intent` 11.8% with 0: three GAP lines, and 41.3% of
  traffic covered (5.4% has no intent). `upload_v1_flow` holds 12 cases and no traffic at all.
- **case age** (`suite.yaml`): 71 of the 112 live cases were written in the first six weeks, the
  median case is 14.0 months old, and nothing was added after 2026-01-14 against a quota of 14 a
  month (8 sampled, 6 from escalations).
- **free passes** (`history/`, 15 runs of 7 systems): the twelve `upload_v1_flow` cases passed
  on every run of every system; without them each run's pass rate is 1.3 to 2.3 points lower
  (the newest quarterly run: 0.866 with them, 0.850 without).
- **stale references** (`registry.yaml`): the same twelve reference the flag `upload_v1`, removed
  on 2026-03-09, and four `order_status` cases the endpoint `GET /v1/orders/lookup`, deleted on
  2026-01-20: sixteen retirement proposals.
- **counterfactual**: `model-2025-06`, run on suite@v6 on 2025-07-21, scored 0.874 on its 87
  cases; its stored decisions against today's expected ones score 0.612 on the 85 cases both
  hold. The bar moved with the product for those cases (November rewrote 22 of them); every
  system first run on suite@v10 or later re-scores as it scored: it has not moved since.
- **rejection reasons** (`decisions/`): five signed rejections across three quarters, every one
  after the gate rule `undecided` (false negatives above the baseline's, within the noise: a
  reviewer rejected the refunds waved through): one rule does all the work.
- **production signal** (`production.yaml`): the suite's pass rate stayed within 0.86-0.89 while
  CSAT went 4.4 -> 3.8 (-13.6%) and the escalation rate 0.08 -> 0.15.

`decisions/` is signed with a key made for the sample; `flipgate verify` finds the runs unchanged
and the signer unknown, as it should.
"""


def suite_yaml(cases: list[SupportCase]) -> str:
    def entry(c: SupportCase) -> str:
        refs = "".join(
            f", {name}: [{', '.join(values)}]"
            for name, values in (("flags", c.flags), ("endpoints", c.endpoints))
            if values
        )
        head = f"  - {{case: {c.case}, intent: {c.intent}, added: {c.added}{refs}"
        if c.retired is None:
            return head + "}\n"
        return head + f", retired: {c.retired}, reason: {json.dumps(c.reason)}}}\n"

    return (
        "# The suite's own record (README: the suite manifest): every case's intent, when it was\n"
        "# added and what it references; retired cases stay in the archive with date and reason.\n"
        "suite: support-assistant\nversion: suite@v14\n"
        f"started: {SUPPORT_STARTED}\n"
        "coverage: {min_cases: 3}          # an intent with fewer live cases is a gap\n"
        "intake: {sampled_per_month: 8, escalations_per_month: 6, retirements_per_month: 2}\n"
        "cases:\n"
        + "".join(entry(c) for c in cases if c.retired is None)
        + "archive:\n"
        + "".join(entry(c) for c in cases if c.retired is not None)
    )


def traffic_yaml() -> str:
    shares = sorted(
        ((i, s) for i, (_, s) in SUPPORT_INTENTS.items() if s is not None), key=lambda x: -x[1]
    )
    return (
        "# What production asked for over the last 90 days, by intent (5.4% has no intent).\n"
        "window: {from: 2026-05-05, to: 2026-08-02}\n"
        "source: support conversations, tagged by the intent classifier\n"
        "intents:\n" + "".join(f"  {intent}: {share}\n" for intent, share in shares)
    )


def registry_yaml() -> str:
    endpoints = sorted({*SUPPORT_ENDPOINTS.values(), "POST /v2/uploads", "POST /v2/slack/events"})
    return (
        "# What is live in the product today, and what went when.\n"
        "flags: [upload_v2, slack_bridge, es_locale, threaded_context]\n"
        f"endpoints: [{', '.join(endpoints)}]\n"
        "removed:\n"
        f"  - {{flag: {REMOVED_FLAG}, date: {REMOVED_ON}}}\n"
        f"  - {{endpoint: {DELETED_ENDPOINT}, date: {DELETED_ON}}}\n"
    )


SUPPORT_PRODUCTION = """\
# The quarterly report: the suite's pass rate beside what it is meant to predict.
signals:
  csat: {better: higher, about: "mean satisfaction rating users leave, 1-5"}
  escalation_rate: {better: lower, about: share of conversations handed to a person}
periods:
  - {period: 2025-Q3, suite_pass_rate: 0.88, csat: 4.4, escalation_rate: 0.08}
  - {period: 2025-Q4, suite_pass_rate: 0.86, csat: 4.2, escalation_rate: 0.10}
  - {period: 2026-Q1, suite_pass_rate: 0.89, csat: 4.0, escalation_rate: 0.12}
  - {period: 2026-Q2, suite_pass_rate: 0.87, csat: 3.8, escalation_rate: 0.15}
"""
SUPPORT_REVIEWER = ("Dana Whitfield", "dana@example.com")


def support_decisions(workspace: Path, kept: Path) -> None:
    """The five rejections, each the gate applied to the candidate and the incumbent's run of
    the time, written to `workspace/decisions`.

    A signature changes with the key, so a decision already in `kept` (the folder being
    rebuilt) whose message is unchanged is copied as it stands; only the others are signed, with
    a key made for the purpose (a sample's key, trusted by none).
    """
    from flipgate.core.decision.document import render_decision
    from flipgate.core.decision.file import decision_path, split_signed, write_decision
    from flipgate.core.decision.record import InvalidDecision, Reviewer
    from flipgate.core.decision.review import build_record
    from flipgate.core.decision.signing import find_signing_key
    from flipgate.core.gate.compare import compare
    from flipgate.core.gate.spec import load_spec
    from flipgate.core.runs.reading import load_run
    from flipgate.present.reasons import sentence, summary

    spec = load_spec(workspace / "gate.yaml")
    folder = workspace / "decisions"
    unsigned = []
    for run in SUPPORT_HISTORY:
        if run.candidate_slot is None:
            continue
        day = run.folder.removesuffix("-candidate")
        comparison = compare(
            load_run(workspace / "history" / f"{day}-main"),
            load_run(workspace / "history" / run.folder),
            spec,
        )
        # More false negatives than the baseline, within the noise: the gate cannot call it
        # (INCONCLUSIVE), and the reviewer rejects the refunds it waved through.
        assert comparison.result.rule == "undecided", summary(comparison.result)
        assert comparison.result.false_negatives is not None
        record = build_record(
            comparison,
            workspace=workspace,
            decision="reject",
            cause="regression",
            reason=f"{sentence(comparison.result.false_negatives)}; the misses are refunds it "
            "waved through",
            reviewer=Reviewer(*SUPPORT_REVIEWER),
            created=datetime.fromisoformat(run.created) + timedelta(hours=30),
        )
        previous = kept / decision_path(record, folder).name
        try:
            same = split_signed(previous.read_bytes())[0] == render_decision(record).encode()
        except (OSError, InvalidDecision):
            same = False
        if same:
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(previous, folder / previous.name)
        else:
            unsigned.append(record)
    if not unsigned:
        return
    with tempfile.TemporaryDirectory() as keys:
        key = Path(keys) / "sample_key"
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", SUPPORT_REVIEWER[1], "-f", key],
            check=True,
        )
        for record in unsigned:
            write_decision(record, find_signing_key(key), folder)


def write_support_workspace(out: Path, kept: Path) -> None:
    workspace = out / SUPPORT
    cases = support_cases()
    edited, failing = support_plan(cases)
    for run in (*SUPPORT_HISTORY, *SUPPORT_ARMS):
        folder = (
            workspace / run.folder if run in SUPPORT_ARMS else workspace / "history" / run.folder
        )
        write_run(folder, support_run(cases, run, edited, failing[run.folder]))
    write_text(workspace / "suite.yaml", suite_yaml(cases))
    write_text(workspace / "traffic.yaml", traffic_yaml())
    write_text(workspace / "registry.yaml", registry_yaml())
    write_text(workspace / "production.yaml", SUPPORT_PRODUCTION)
    write_text(workspace / "gate.yaml", gate_yaml("The spec's defaults (SPEC §3), written out."))
    write_text(workspace / "README.md", SUPPORT_README)
    support_decisions(workspace, kept)


TOP_README = """\
# Sample runs

Workspaces a new user can open at once (`uv run flipgate` opens `listing-reviewer`). Each holds
`baseline/`, `candidate/` (or `candidates/`), `gate.yaml` and `flaky.yaml`, and a README with
what it shows.

- `listing-reviewer/`: decision outcomes; a safer model that a plain pass/fail count blocks.
- `listing-reviewer-decisive/`: the same baseline against a model that is truly worse.
- `agent-suite/`: an INCONCLUSIVE prompt edit, with reruns and repeated baseline runs.
- `support-assistant/`: seed 002's year-old suite, for `flipgate suite audit`: its manifest,
  traffic, registry, history of runs, signed decisions and production signal.
- `winner-rule/`: three candidates ranked by the release rule (seed 003): `baseline/` is the
  incumbent, `candidates/NAME/` each candidate; `flipgate rank` and the candidates screen.

These files are generated: edit `scripts/make_sample_runs.py` and run
`uv run python scripts/make_sample_runs.py`, never the files by hand.
"""


# --------------------------------------------------------------------------- workspaces


def write_listing_workspaces(out: Path, seed: int) -> None:
    gate = gate_yaml(
        "Gate on the costly outcomes and budget the cheap one (seed 000): an escalation fails no\n"
        "case here, but escalations may not pass 8% of the candidate's decisions.",
        fail_on=("false_negative", "false_positive", "mirror"),
        zero_false_negative_rules=("recalled_products",),
        inconclusive_max_share=0.08,
    )
    baseline = reviewer_run(CURRENT_REVIEWER, seed)
    for name, candidate, readme in (
        ("listing-reviewer", CAUTIOUS_REVIEWER, LISTING_README),
        ("listing-reviewer-decisive", DECISIVE_REVIEWER, DECISIVE_README),
    ):
        workspace = out / name
        write_run(workspace / "baseline", baseline)
        write_run(workspace / "candidate", reviewer_run(candidate, seed))
        write_text(workspace / "gate.yaml", gate)
        write_text(workspace / "flaky.yaml", flaky_yaml(()))
        write_text(workspace / "README.md", readme)
    write_text(
        out / "listing-reviewer" / "plain-pass-fail.yaml",
        gate_yaml("Every default: any disagreement, escalations included, fails a case."),
    )


AGENT_KEY = {
    "model": "support-agent-2026-09",
    "prompt": "prompts@7c1e9a",
    "tools": "tools@3d52f0",
    "judge": "policy-judge@2026-08",
    "eval_set": "support-suite@v9",
    "harness": "harness@2.3.1",
}
# Seed 001's SECOND METRICS line: cost, latency and step count, each with its own budget (and the
# tokens behind the cost). The prompt edit adds about 180 tokens a repetition: within every budget.
AGENT_BUDGETS = {
    "latency_ms": (
        "{stat: p95, max_increase: 0.10}",
        "the slow tail, at most 10% above the baseline's",
    ),
    "cost_usd": ("{stat: mean, max: 0.009}", "dollars a repetition, whatever the baseline spent"),
    "steps": ("{stat: median, max: 4}", "tool calls and the reply"),
    "tokens": ("{stat: total, max_increase: 0.10}", "the whole run's tokens"),
}
PROMPT_CHANGE = {"keys": ["prompt"], "summary": "ask the customer to confirm before acting"}


def write_agent_workspace(out: Path, seed: int) -> None:
    workspace = out / "agent-suite"
    cases = agent_cases(random.Random(f"{seed}/agent-cases"))
    candidate_key = AGENT_KEY | {"prompt": "prompts@b83d20"}

    def manifest(run_id: str, created: str, candidate: bool = False) -> RunManifest:
        if candidate:
            return RunManifest(run_id, created, candidate_key, PROMPT_CHANGE)
        return RunManifest(run_id, created, AGENT_KEY)

    flipped = tuple(sorted(RERUN_BASE))
    arms = {
        "baseline": AgentArm(manifest("sa-2026-11-24-main", "2026-11-24T03:00:00Z"), BASE_CODES),
        "candidate": AgentArm(
            manifest("sa-2026-11-25-pr-412", "2026-11-25T10:41:00Z", candidate=True),
            CAND_CODES,
            extra_tokens=180,
            confirms=True,
        ),
        "reruns/baseline": AgentArm(
            manifest("sa-2026-11-25-pr-412-rerun-baseline", "2026-11-25T12:05:00Z"),
            RERUN_BASE,
            reps=5,
            cases=flipped,
        ),
        "reruns/candidate": AgentArm(
            manifest("sa-2026-11-25-pr-412-rerun-candidate", "2026-11-25T12:05:00Z", True),
            RERUN_CAND,
            extra_tokens=180,
            confirms=True,
            reps=5,
            cases=flipped,
        ),
    }
    for i, overrides in enumerate(REPEAT_CODES, start=2):
        arms[f"baseline-repeats/run-{i}"] = AgentArm(
            manifest(f"sa-2026-11-24-main-r{i}", f"2026-11-24T0{3 + 2 * (i - 1)}:00:00Z"),
            repeat_codes(BASE_CODES, overrides, shift=i - 1),
        )
    for path, arm in arms.items():
        write_run(workspace / path, agent_run(arm, cases, seed))
    gate = gate_yaml(
        "The spec's defaults (SPEC §3), written out, and a budget for each second metric.",
        budgets=AGENT_BUDGETS,
    )
    write_text(workspace / "gate.yaml", gate)
    write_text(workspace / "flaky.yaml", flaky_yaml(FLAKY_ENTRIES))
    write_text(workspace / "README.md", AGENT_README)


# --------------------------------------------------------------------------- winner rule

# Seed 003's table: six instances, two repetitions each; T resolved, F not, None never ran.
WINNER_RULE_TABLES: dict[str, dict[str, tuple[bool | None, ...]]] = {
    "baseline": {
        "i1": (True, True),
        "i2": (True, False),
        "i3": (False, False),
        "i4": (False, True),
        "i5": (False, False),
        "i6": (False, False),
    },
    "candidates/CLAUDE": {
        "i1": (True, True),
        "i2": (True, True),
        "i3": (True, False),
        "i4": (False, False),
        "i5": (False, False),
        "i6": (False, False),
    },
    "candidates/MERGE": {
        "i1": (True, True),
        "i2": (True, False),
        "i3": (False, True),
        "i4": (True, False),
        "i5": (False, True),
        "i6": (False, False),
    },
    # Cut short: i3's second repetition never ran, and its one pass would pass the case.
    "candidates/HURRIED": {
        "i1": (True, True),
        "i2": (True, True),
        "i3": (True, None),
        "i4": (False, False),
        "i5": (False, False),
        "i6": (False, False),
    },
}
WINNER_RULE_KEY = {
    "model": "coder-2026-10",
    "agent": "single-pass@1.4",
    "eval_set": "winner-rule@v1",
    "harness": "agent-eval@0.9",
}
WINNER_RULE_AGENTS = {
    "candidates/CLAUDE": ("claude-loop@2.0", "plan, edit, run the tests, repeat"),
    "candidates/MERGE": ("merge-vote@1.0", "three drafts merged by vote"),
    "candidates/HURRIED": ("claude-loop@2.0-fast", "the loop with half the time budget"),
}


def cells_by_case(
    tables: list[dict[str, tuple[bool | None, ...]]],
) -> list[dict[str, list[bool]]]:
    return [{case: [r for r in reps if r is not None] for case, reps in t.items()} for t in tables]


def winner_rule_table() -> str:
    """The workspace's table as its README shows it: T resolved, F not, one column a run."""
    names = [
        path.rsplit("/", 1)[-1].replace("baseline", "incumbent") for path in WINNER_RULE_TABLES
    ]
    tables = list(WINNER_RULE_TABLES.values())
    mark = {True: "T", False: "F", None: "(never ran)"}
    rows = [
        f"| {case} | " + " | ".join(" ".join(mark[r] for r in t[case]) for t in tables) + " |"
        for case in tables[0]
    ]
    graded = cells_by_case(tables)
    cells = [[r for reps in t.values() for r in reps] for t in graded]
    # SPEC §3.1 with `all`: every graded repetition passes; one that never ran is not graded.
    resolved = [sum(all(reps) for reps in t.values()) for t in graded]
    return "\n".join(
        [
            "| instance | " + " | ".join(names) + " |",
            "|---" * (len(names) + 1) + "|",
            *rows,
            "| cells passed | " + " | ".join(f"{sum(c)} of {len(c)}" for c in cells) + " |",
            "| resolved on every repetition that ran | " + " | ".join(map(str, resolved)) + " |",
        ]
    )


def winner_rule_run(path: str) -> Run:
    name = path.rsplit("/", 1)[-1]
    rows = [
        {
            "case": case,
            "rep": rep,
            "passed": passed,
            "output": f"{name} on {case}, repetition {rep}: "
            + ("resolved: the tests pass" if passed else "not resolved: a test still fails"),
        }
        for case, reps in WINNER_RULE_TABLES[path].items()
        for rep, passed in enumerate(reps)
        if passed is not None
    ]
    if path == "baseline":
        manifest = RunManifest("wr-incumbent", "2026-11-20T09:00:00Z", WINNER_RULE_KEY)
    else:
        agent, summary = WINNER_RULE_AGENTS[path]
        key = WINNER_RULE_KEY | {"agent": agent}
        change = {"keys": ["agent"], "summary": summary}
        manifest = RunManifest(f"wr-{name.lower()}", "2026-11-21T09:00:00Z", key, change)
    return Run(manifest, rows)


WINNER_RULE_README = f"""\
# winner-rule: which candidate, by the release rule (seed 003)

Three candidate coding agents against the incumbent on seed 003's six instances, two repetitions
each, pass/fail (`passed`: the instance's tests pass). `gate.yaml` fails closed:
`aggregate: {{ordinary: all}}`, so an instance counts as resolved only when every repetition
resolves it. `flipgate rank` ranks by that same collapse, the gate's own.

{winner_rule_table()}

```sh
uv run flipgate rank sample_runs/winner-rule          # exit 0: CLAUDE clears the incumbent
uv run flipgate open sample_runs/winner-rule          # the candidates screen; enter opens one
```

The report gives three labels, never one merged verdict:

1. **Highest mean: MERGE**, 0.500 (6 of 12 cells) against CLAUDE's 0.417 (5 of 12). The mean
   counts cells, and MERGE's passes are scattered one repetition at a time. It is shown as a
   description, and it picks nothing.
2. **Winner by the release key: CLAUDE.** The key is the number of instances that pass under the
   gate's collapse: CLAUDE resolves i1 and i2 on both repetitions (2), MERGE only i1 (1). The
   mean breaks a tie on the key, and only then. The report says in words that the mean and the
   key disagree. HURRIED would have the highest key (3), but only because its i3 has one
   repetition, which passed: it was judged on an easier set of cells, so it is incomplete
   (`1 repetition missing`), shown and never the winner.
3. **Clears the incumbent: yes.** Winning the ranking is not permission to ship. CLAUDE clears
   because its key is strictly above the incumbent's (2 against 1) *and* the gate against the
   incumbent says PASS (0 broke, 1 fixed). Had the incumbent also resolved two, the tie would
   keep the incumbent; a failed safety case or an INVALID comparison would reject CLAUDE
   whatever its key. Run `flipgate rank` on the incumbent and MERGE alone to see a tie: exit 1.

Is the lead real? CLAUDE and MERGE differ on one instance (i2), so the paired exact test, two-sided
since the data picked the leader, gives p = 1.0: the lead is within noise, and the report says so.
Is there evidence CLAUDE beats the incumbent? It fixes one instance and breaks none: one-sided
p = 0.5, Holm-adjusted 1.0 across the three candidates: none, said beside "clears". Each no-
regression gate is applied at alpha as it stands, uncorrected.
"""


def write_winner_rule_workspace(out: Path) -> None:
    workspace = out / "winner-rule"
    for path in WINNER_RULE_TABLES:
        write_run(workspace / path, winner_rule_run(path))
    write_text(
        workspace / "gate.yaml",
        gate_yaml(
            "The release rule of seed 003 fails closed: an instance counts as resolved only when\n"
            "every repetition resolves it. `flipgate rank` ranks by the same collapse.",
            ordinary="all",
        ),
    )
    write_text(workspace / "flaky.yaml", flaky_yaml(()))
    write_text(workspace / "README.md", WINNER_RULE_README)


def signed_decisions(out: Path) -> dict[Path, bytes]:
    """The decision files in `out`'s workspaces, by their paths below it: support-assistant's,
    and any someone signed while trying a sample."""
    found = out.glob("*/decisions/*") if out.exists() else ()
    return {p.relative_to(out): p.read_bytes() for p in sorted(found) if p.is_file()}


def generate(out: Path, seed: int) -> None:
    """Build every workspace in a sibling temp folder, then swap it in for `out`, unless that
    would change or drop a signed decision: files we write never overwrite one."""
    kept = signed_decisions(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        write_listing_workspaces(staging, seed)
        write_agent_workspace(staging, seed)
        write_support_workspace(staging, out / SUPPORT / "decisions")
        write_winner_rule_workspace(staging)
        write_text(staging / "README.md", TOP_README)
        written = signed_decisions(staging)
        if lost := [path for path, data in kept.items() if written.get(path) != data]:
            raise SystemExit(
                f"refusing to rebuild {out}: {out / lost[0]} is a signed decision this script "
                "would not write again as it stands; move it out of the way to rebuild"
            )
        if out.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{out.name}-old-", dir=out.parent))
            os.replace(out, retired / out.name)
            os.replace(staging, out)
            shutil.rmtree(retired)
        else:
            os.replace(staging, out)
    finally:
        if staging.exists():
            shutil.rmtree(staging)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=ROOT / "sample_runs", help="output folder")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seeds second metrics")
    args = parser.parse_args(argv)
    generate(args.out, args.seed)


if __name__ == "__main__":
    main()
