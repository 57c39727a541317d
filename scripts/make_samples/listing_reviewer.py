"""`listing-reviewer`: seed 000's marketplace reviewer, a cautious newer model that a plain
pass/fail count blocks and a gate on the costly outcomes passes."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .files import Run, RunManifest, flaky_yaml, gate_command, gate_yaml, write_run, write_text

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


def reviewer_run(model: ReviewerModel, seed: int) -> Run:
    key = {"model": model.model, **REVIEWER_KEY}
    change = {"keys": ["model"], "summary": model.change_summary} if model.change_summary else None
    manifest = RunManifest(model.run_id, model.created, key, change, REVIEWER_LABELS)
    return Run(manifest, reviewer_rows(model, random.Random(f"{seed}/{model.run_id}")))


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


# Gate on the costly outcomes; the decisive workspace gates its model with the same spec.
GATE = gate_yaml(
    "Gate on the costly outcomes and budget the cheap one (seed 000): an escalation fails no\n"
    "case here, but escalations may not pass 8% of the candidate's decisions.",
    fail_on=("false_negative", "false_positive", "mirror"),
    zero_false_negative_rules=("recalled_products",),
    inconclusive_max_share=0.08,
)


def write_workspace(workspace: Path, candidate: ReviewerModel, readme: str, seed: int) -> None:
    """The current model as the baseline against `candidate`, under `GATE`."""
    write_run(workspace / "baseline", reviewer_run(CURRENT_REVIEWER, seed))
    write_run(workspace / "candidate", reviewer_run(candidate, seed))
    write_text(workspace / "gate.yaml", GATE)
    write_text(workspace / "flaky.yaml", flaky_yaml(()))
    write_text(workspace / "README.md", readme)


def write(out: Path, seed: int) -> None:
    write_workspace(out / "listing-reviewer", CAUTIOUS_REVIEWER, LISTING_README, seed)
    write_text(
        out / "listing-reviewer" / "plain-pass-fail.yaml",
        gate_yaml("Every default: any disagreement, escalations included, fails a case."),
    )
