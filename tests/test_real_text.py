"""The contradiction engine on realistic LLM-style answers, not one-line probes.

Real assistant turns are long: Markdown lists, numbered steps, "**Day 2:**" pseudo-headings,
tables, code blocks, greetings and hedges. Each false-alarm case below is a conversation in
which no certificate may be raised, grouped by the cause of false alarms it guards against;
each recall case names the turn that must be certified and the earlier turn it must cite.
Conversations run through test_contradictions' `run` helper; the parser and the embedder it
builds the engine from are process-wide singletons, so only the first conversation is slow.
"""

from __future__ import annotations

import pytest

from monitor.contracts import ContradictionCertificate
from tests.test_contradictions import run as certify

Turns = list[tuple[str, str]]


def explain(certs: list[ContradictionCertificate]) -> str:
    """The certificates as the failure message: a false alarm must show its own reasoning."""
    return "\n".join(f"{c.detector} {c.turn_index}->{c.conflicts_with}: {c.explanation}"
                     for c in certs)


# --- (1) different subjects must not merge ------------------------------------------------

TWO_HOTELS: Turns = [
    ("user", "Can you suggest two hotels in Porto for a weekend in May? Mid-range, please."),
    ("assistant", """Hi! Great choice — Porto is lovely in May. Here are two mid-range options:

1. **Hotel Ribeira Vista** — right on the riverfront, a five-minute walk from the Dom Luís I
   Bridge. A double room costs about €140 per night, breakfast included. The rooms are
   small but bright, and the rooftop terrace has a great view of the wine lodges.
2. **Casa dos Lóios** — a quieter boutique hotel near São Bento station. A double room
   costs about €95 per night, and breakfast is an extra €12. The rooms are large, and the
   staff are known for good restaurant tips.

| Hotel | Price per night | Breakfast |
|---|---|---|
| Ribeira Vista | €140 | included |
| Casa dos Lóios | €95 | €12 extra |

Both are well rated. If the view matters most, go for Ribeira Vista; if you want more space
for less money, Casa dos Lóios is the better deal. Prices can rise on holiday weekends, so
I'd book at least a month ahead. Let me know if you'd like options near the beach too!"""),
    ("user", "Which one is closer to the metro?"),
    ("assistant", """Good question! **Casa dos Lóios** is closer: São Bento metro is about three
minutes on foot, and the station also has trains to Braga and Guimarães. **Hotel Ribeira
Vista** is around twelve minutes from São Bento, mostly uphill, so with heavy luggage a taxi
(about €6) is easier.

To recap the prices: Ribeira Vista is about €140 per night with breakfast, and Casa dos
Lóios is about €95 per night plus €12 for breakfast. Either way, you can buy an Andante card
at the metro station for €0.60 and top it up as you go."""),
]

TWO_POLICIES: Turns = [
    ("user", "I'm flying to Rome next month. Is the travel insurance policy from my bank worth "
             "it?"),
    ("assistant", """It depends on what it covers, but here's how to judge it.

**What to check**
- **Medical cover:** at least €1 million is a sensible minimum for Europe.
- **Cancellation:** it should refund non-refundable bookings if you fall ill.
- **Baggage:** look at the single-item limit, not only the total.

Bank policies like this usually cost about €45 per year, and the policy covers trips of up
to 31 days. That is usually cheaper than buying single-trip cover each time. I'd still read
the exclusions carefully — many bank policies exclude pre-existing conditions and winter
sports."""),
    ("user", "Thanks. Unrelated: I bought a jacket at Zara that doesn't fit. Can I return it?"),
    ("assistant", """Yes, almost certainly! Here's how Zara returns usually work in Europe:

1. **In store:** bring the jacket with its tags and the receipt (or the e-ticket in the app).
2. **Online purchases:** start the return in your account and drop the parcel at a
   collection point.
3. **Refund:** the money goes back to the original payment method within about 14 days.

The return policy covers 30 days from the purchase date, so don't wait too long. The policy
doesn't apply to items that have been worn or washed, so keep the tags on."""),
]


# --- (2) Markdown structure must not be read as values -------------------------------------

ITINERARY: Turns = [
    ("user", "Plan a 3-day trip to Florence for two people. We like art and food."),
    ("assistant", """Here's a relaxed 3-day plan for Florence:

### Day 1: The Historic Centre
1. Start at the **Duomo** at 8:30 and climb Brunelleschi's dome (463 steps, book ahead).
2. Walk to Piazza della Signoria and the Loggia dei Lanzi.
3. Have lunch at the Mercato Centrale — the lampredotto sandwich is a local classic.

**Day 2:**
1. Spend the morning at the **Uffizi Gallery**; tickets cost €25 per person.
2. Cross the Ponte Vecchio and visit the Pitti Palace in the afternoon.
3. Dinner in Santo Spirito, where trattorias are cheaper than in the centre.

**Day 3:**
1. Take bus 12 up to Piazzale Michelangelo for the view.
2. Visit the Accademia to see Michelangelo's David; tickets cost €16.
3. Finish with a cooking class — most last 3 hours and cost about €90 per person.

A Firenze Card costs €85 and covers most museums for 72 hours, but with only two big museums
in this plan, separate tickets are cheaper. Enjoy your trip!"""),
    ("user", "Can you make Day 2 a bit lighter?"),
    ("assistant", """Sure! Here's a lighter **Day 2**:

1. Visit the Uffizi in the morning (book the 9:00 slot; tickets cost €25 per person).
2. Have a long lunch near the Ponte Vecchio.
3. Spend the late afternoon in the Boboli Gardens instead of the Pitti Palace.

Step 1 takes about 3 hours, so you'll still have a slow, easy afternoon. Day 1 and Day 3 stay
the same."""),
]

CODE_BLOCKS: Turns = [
    ("user", "How do I set a request timeout with the Python requests library?"),
    ("assistant", """You pass a `timeout` argument to each call. Here's a minimal example:

```python
import requests

response = requests.get("https://api.example.com/items", timeout=5)
response.raise_for_status()
print(len(response.json()))
```

**Step 1:** choose a timeout. The value is in seconds; 5 seconds is a sensible default for
most APIs.

**Step 2:** handle the error. If the server does not answer in time, requests raises
`requests.exceptions.Timeout`, so wrap the call in `try`/`except`.

Note that requests has no timeout by default, which means a call can hang forever. That's
why it's worth always setting one."""),
    ("user", "And how do I add retries?"),
    ("assistant", """Use an `HTTPAdapter` with urllib3's `Retry`:

```python
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

retry = Retry(total=3, backoff_factor=0.5, status_forcelist=[500, 502, 503, 504])
session = requests.Session()
session.mount("https://", HTTPAdapter(max_retries=retry))
response = session.get("https://api.example.com/items", timeout=10)
```

1. `total=3` means three retries after the first attempt.
2. `backoff_factor=0.5` waits 0.5 s, 1 s, then 2 s between attempts.
3. The timeout here is 10 seconds because the retries already cover short hiccups.

Keep the retry count small: 3 retries is enough for most services."""),
]


# --- (3) a sentence never conflicts with itself or with its restatement --------------------

SUMMARY_REPEATS: Turns = [
    ("user", "When is the Rijksmuseum open? I'm in Amsterdam on Monday."),
    ("assistant", """Good news — you're in luck! **The Rijksmuseum is open on Mondays.** It is
open every day of the year from 9:00 to 17:00, including Mondays, which is handy because
many smaller museums in Amsterdam close on Mondays.

A few tips:
- **Tickets:** an adult ticket costs €22.50, and entry is free for under-18s.
- **Timing:** arrive at 9:00 or after 15:00 to avoid the biggest crowds.
- **Highlights:** *The Night Watch* is in the Gallery of Honour on the second floor.

**In short:** the Rijksmuseum is open on Mondays from 9:00 to 17:00, and an adult ticket
costs €22.50."""),
    ("user", "Great, and how long should I plan for it?"),
    ("assistant", """Plan for about 3 hours if you want to see the highlights without rushing.
As I said, the Rijksmuseum is open on Mondays from 9:00 to 17:00, so arriving at 10:00
leaves plenty of time. An adult ticket costs €22.50 — buy it online to skip the queue.
If you have energy left, the Van Gogh Museum is next door and is also open on Mondays."""),
]


# --- (4) user updates authorise the new value ----------------------------------------------

USER_UPDATES: dict[str, Turns] = {
    "signing_time": [
        ("user", "I have a contract signing at 11:00 tomorrow. Help me plan the morning."),
        ("assistant", """Sure! Here's a calm morning before your **11:00 signing**:

- **8:00** — breakfast and a quick review of the contract's key clauses.
- **9:00** — print two copies and check that the names and dates are right.
- **10:00** — leave for the office, so you arrive 15 minutes early.

Bring photo ID and a pen you like. Good luck with the signing at 11:00!"""),
        ("user", "Change of plan: I now have the signing at 2:00."),
        ("assistant", """No problem — here's the updated plan for your **2:00 signing**:

- **Morning** — work as usual, and review the key clauses after lunch.
- **12:30** — a light lunch; avoid anything that makes you sleepy.
- **1:15** — leave for the office, so you arrive 15 minutes early.

The signing is now at 2:00, so you have the whole morning free. Good luck!"""),
    ],
    "thursday": [
        ("user", "Book me a team lunch for Wednesday, 8 people, somewhere near Covent Garden."),
        ("assistant", """Happy to! Here are three options for **Wednesday**:

1. **Dishoom Covent Garden** — Bombay-style café; set menu £35 per person.
2. **The Ivy Market Grill** — classic British; set lunch £29.50 per person.
3. **Flat Iron** — steak, no bookings for groups over 6, so it's riskier.

The team lunch is on Wednesday. I'd go for The Ivy Market Grill, which takes group bookings
for lunch. Shall I draft a booking request?"""),
        ("user", "Actually, move the lunch to Thursday."),
        ("assistant", """Sure! The team lunch is on Thursday. The Ivy Market Grill has tables
for 8 on Thursday at 12:30 and 13:00. The set lunch is still £29.50 per person, so about
£236 for the group before service. I'll draft the request for Thursday at 12:30 unless you
prefer 13:00."""),
    ],
    "lisbon": [
        ("user", "Our company offsite is in Barcelona. Any venue ideas for 30 people in June?"),
        ("assistant", """Here are two venue ideas in Barcelona for 30 people:

- **Casa Seat** on Passeig de Gràcia — modern rooms, day rate around €2,500.
- **Mas Salagros**, outside the city — a rural hotel with meeting rooms and a garden.

The offsite is in Barcelona, so I'd also book a group dinner in the Born district."""),
        ("user", "Update: we moved it to Lisbon."),
        ("assistant", """Got it — the offsite is now in **Lisbon**. Good venues for 30 people:

1. **LX Factory** — creative spaces in Alcântara; day rates start around €2,000.
2. **Palácio Chiado** — a restored palace in the centre, great for a dinner.

Your offsite is in Lisbon. You could end the day with a sunset cruise on the Tagus."""),
    ],
    "five_people": [
        ("user", "Find me an Airbnb in Edinburgh for 3 people for the Fringe."),
        ("assistant", """Here's what to look for in Edinburgh during the Fringe for **3 people**:

- A two-bedroom flat in the New Town typically costs £250–£350 per night in August.
- Marchmont and Bruntsfield are cheaper and a 20-minute walk to the Royal Mile.

Book soon — flats for 3 people sell out months ahead."""),
        ("user", "Scratch that, 5 people."),
        ("assistant", """Okay, for **5 people** you'll need at least three bedrooms or a
two-bedroom flat with a sofa bed. For 5 people in August, expect £350–£500 per night in the
New Town, or around £300 in Leith. Check the bed layout carefully before booking."""),
    ],
}


# --- (5) quotations, fiction, role-play and templates --------------------------------------

TEMPLATE_AND_QUOTE: Turns = [
    ("user", "I live in Lisbon. Write me a short cover letter template for a barista job."),
    ("assistant", """Of course! Here's a template you can adapt:

---
**[Your Name]**
[Your Address] · [Phone] · [Email]

Dear [Hiring Manager's Name],

I am writing to apply for the Barista position at [Café Name]. I have [number] years of
experience in busy cafés, where I prepared up to [number] drinks an hour. I live in
[Your City], ten minutes from your shop, and I am available to start on [Start Date].

Kind regards,
[Your Name]
---

**Tips:**
- Replace every bracketed field before sending.
- Mention a specific drink or bean the café is known for.
- Keep it under 250 words."""),
    ("user", "Now write a tiny story where a character lies about where he lives."),
    ("assistant", """Here's a short one:

> Tomás leaned on the counter and smiled. "I live in Madrid," he told the barista, "just
> visiting." It wasn't true — he lived three streets away and came in every morning.
> The barista, who had served him a cortado for two years, only laughed and said,
> "Sure you do, Tomás. The usual?"

The joke works because the reader knows he's lying before the barista says so. You could
stretch it into a longer scene by having him keep the story going for a week."""),
]

ROLE_PLAY: Turns = [
    ("user", "Let's role-play: you are a shop assistant and I'm a customer. The shop closes at "
             "6 pm."),
    ("assistant", """*Smiles from behind the counter.* "Good afternoon! Welcome to Green Leaf
Books. Just so you know, we close at 6 pm today, so you have about an hour to browse. Our
new arrivals are on the table by the window, and the poetry section is upstairs.\""""),
    ("user", "(out of character) In real life, what time do UK bookshops usually close?"),
    ("assistant", """Out of character: most independent bookshops in the UK close between
5:30 pm and 6 pm on weekdays. Larger chains such as Waterstones in city centres often stay
open until 7 pm or 8 pm, and on Sundays many shops open from 11 am to 5 pm because of Sunday
trading rules. Hours vary a lot, so it's always worth checking the shop's website."""),
]


# --- (6) hypotheticals, goals and plans -----------------------------------------------------

HYPOTHETICAL_AND_GOALS: Turns = [
    ("user", "I'm going from London to Paris next week, and I want to walk more."),
    ("assistant", """Nice! A few thoughts on both:

**Getting there**
- The Eurostar from St Pancras takes about 2 hours 20 minutes to Paris Gare du Nord.
- If you took the train and ferry instead, it would take around 8 hours.
- A flight takes about 1 hour 15 minutes, but with airport transfers it usually ends up
  slower than the Eurostar.

**Walking**
Paris is a great city to walk in: on a sightseeing day you'll easily do 15,000 steps. A good
long-term goal is to aim for 10,000 steps a day — build up gradually, adding 1,000 steps a
week."""),
    ("user", "What if I drove?"),
    ("assistant", """If you drove, it would take about 6 to 7 hours including the Channel crossing
by Eurotunnel (35 minutes on the shuttle). It only makes sense if you want the car in France.
The Eurostar still takes about 2 hours 20 minutes and is the easiest option.

And for the walking goal: aim for 10,000 steps a day over the next two months. If you
start at 4,000 and add 1,000 a week, you'll reach 10,000 in six weeks."""),
]


# --- (7) numeric misreads --------------------------------------------------------------------

NUMERIC_MISREADS: Turns = [
    ("user", "My team meeting is at 2:00 and I want to present our 3D printing results."),
    ("assistant", """Here's a simple structure for your 2:00 PM meeting:

1. **Goal** (1 minute): what you tested and why.
2. **Setup** (2 minutes): the printers, the PLA and PETG filaments, and the 0.2 mm layer height.
3. **Results** (5 minutes): put the numbers in a small table.

| Sample | Material | Strength |
|---|---|---|
| A | PLA | 48 MPa |
| B | PETG | 52 MPa |

In the spreadsheet, rows 3 and 4 hold the failed prints — I'd leave them out of the main
slide and mention them in one sentence. Keep the whole talk under 10 minutes."""),
    ("user", "Should I show the failed prints at all?"),
    ("assistant", """Yes, briefly. At the 2:00 meeting, show one photo of a failed print and
explain the cause in one line. Rows 3 and 4 both failed for the same reason — warping on the
first layer — so one slide covers both. 3D printing audiences appreciate honesty about
failures, and it makes your good results more credible."""),
]


# --- (8) different time frames ---------------------------------------------------------------

TIME_FRAMES: Turns = [
    ("user", "Has the Paris Navigo monthly pass got more expensive?"),
    ("assistant", """Yes, quite a bit. Here's how the price has moved:

- **In 2019**, the Navigo monthly pass cost €75.20.
- **In 2022**, it cost €75.20 as well, as prices were frozen.
- **Today**, in 2024, it costs €86.40 after the 2024 increase.

So the pass costs about 15% more today than it did in 2019. If you're an employee in France,
your employer must reimburse 50% of it, which softens the increase a lot."""),
    ("user", "And a single metro ticket?"),
    ("assistant", """A single metro ticket cost €1.90 in 2019. Today it costs €2.15, and a
carnet of ten is no longer sold on paper — you load it onto a Navigo Easy card instead.
Back in 2019, the Navigo monthly pass cost €75.20; it now costs €86.40."""),
]


HEADING_SECTIONS: Turns = [
    ("user", "I'm in Paris on a Monday and a Tuesday. Which museums can I visit on which day?"),
    ("assistant", """Good thinking — opening days matter a lot in Paris. Here's the split:

## Open on Monday
- **The Louvre** — open 9:00 to 18:00.
- **Centre Pompidou** — opens at 11:00 and stays open until 21:00.

## Closed on Monday
- **Musée d'Orsay** — visit it on Tuesday instead.
- **Musée Rodin** — also a Tuesday visit.

## Closed on Tuesday
- **The Louvre** — so Monday is your Louvre day.
- **Centre Pompidou** — the same.

So: Louvre and Pompidou on Monday, Orsay and Rodin on Tuesday. Book the Louvre online —
timed tickets cost €22 and sell out in summer."""),
]

HEDGE_RESTATED: Turns = [
    ("user", "Hello! When does the first ferry from Split to Hvar leave?"),
    ("assistant", """Hi there! I'm not completely sure, but I think the first Jadrolinija
catamaran from Split to Hvar town leaves at around 7:00 in summer. Timetables change every
season, so please double-check on the Jadrolinija website before you go.

A few tips:
- **Tickets:** about €10–€15 one way; buy them online the day before.
- **Journey time:** roughly 1 hour by catamaran.
- **Car ferry:** if you're driving, the car ferry goes to Stari Grad, not Hvar town."""),
    ("user", "I checked, you were right. What should I do when I arrive?"),
    ("assistant", """Great! Since the first catamaran leaves at 7:00 and takes about 1 hour,
you'll arrive at around 8:00 — perfect for a quiet morning:

1. Walk up to the **Fortica** fortress before it gets hot; entry is about €10.
2. Have breakfast on the main square, Pjaca.
3. In the afternoon, take a water taxi to the Pakleni Islands for a swim.

Enjoy Hvar!"""),
]


# --- (9) drafts written for the user speak in the user's voice --------------------------------

def _nurse_summary(years: str) -> str:
    return f"""Here's a summary you could paste into your profile:

> Registered nurse with {years} years on a busy cardiac ward, now moving into clinical
> research. Skilled at patient education, protocol adherence and careful documentation.

Want a shorter version for the headline as well?"""


NURSE_ASKS = ("user", "I'm a nurse, I've worked 8 years on a cardiac ward and want to move into "
                      "clinical research. Could you write me a short LinkedIn summary?")
DRAFT_AGREES: Turns = [NURSE_ASKS, ("assistant", _nurse_summary("8"))]
DRAFT_AFTER_UPDATE: Turns = [
    NURSE_ASKS, ("assistant", _nurse_summary("8")),
    ("user", "Actually make it 10 years, I forgot my two years as a ward assistant."),
    ("assistant", _nurse_summary("10")),
]
SAILOR_STORY: Turns = [
    # "letter" asks for a draft, "story" for fiction: a narrator is not the user
    ("user", "I've been sailing for 6 years. Write me a short story about an old sailor and "
             "the letter he never sent."),
    ("assistant", """The harbour was quiet when Tom came down to the boat. I had been sailing
for 50 years by then, and I still checked every knot twice. "Storm's coming," he said. I
nodded and untied the bow line anyway."""),
]

QUOTED_READER: Turns = [
    ("user", "I'm 30 and I run 10 km a week. Is that enough?"),
    ("assistant", """It's a good base. A reader of a running blog put it this way:

> At 30, I run 20 km a week and I've never felt fitter.

You don't have to get there at once: add about 10% a week."""),
]
SPEECH_FOR_DAD: Turns = [
    ("user", "I've worked 10 years at the mill myself. Can you write a short speech for my "
             "dad's retirement party?"),
    ("assistant", """Of course! Here's a short speech:

Good evening, everyone. Dad has worked 40 years at the mill. In all that time he never
missed a shift. Thank you, Dad, for everything you taught us."""),
]

KIDS_PARTY = ("user", "Planning my son's 7th birthday party at home, 12 kids coming, from 2 to "
                      "4pm on a Saturday. Ideas for activities?")
KIDS_PARTY_PLAN = ("assistant", """A two-hour party is very manageable! Start with a craft
table as guests arrive, then a treasure hunt in the garden, then pizza and cake at 3:15.""")
KIDS_UPDATE = ("user", "Scratch that, 8 kids now, a few can't make it. Shopping list please?")


def _kids_shopping(pizza: str) -> Turns:
    return [KIDS_PARTY, KIDS_PARTY_PLAN, KIDS_UPDATE, ("assistant", f"""Here's the list:

| Item | What to get |
|---|---|
| Food | {pizza} |
| Cake | One large chocolate cake |
| Games | Treasure hunt prizes |

That should come in well under £100.""")]


def _offsite_lunch(between: str, total: str) -> Turns:
    """A price per head, the user's head count, then a total at another price per head."""
    return [
        ("user", "What does a buffet lunch for a company offsite usually cost in Leeds?"),
        ("assistant", "A buffet lunch from a local caterer costs about £25 per head, drinks "
                      "included."),
        ("user", between),
        ("assistant", total),
    ]


def _risotto(later: str) -> Turns:
    """A recipe's amount, then the method that puts an amount of the same thing in."""
    return [
        ("user", "How much rice do I need for a mushroom risotto for 2?"),
        ("assistant", "For 2 people, use 160 g of arborio rice for the risotto, plus 1 litre "
                      "of stock and a small onion."),
        ("user", "How long does it take?"),
        ("assistant", f"About 20 minutes. {later}"),
    ]


def _picnic(update: str) -> Turns:
    """A head count the user raised, said without the noun, then a message that goes back."""
    return [
        ("user", "I'm hosting a book club picnic on Sunday for 10 people. What food should I "
                 "bring?"),
        ("assistant", "Sandwiches, a fruit salad, crisps and a jug of lemonade are easy to "
                      "carry."),
        ("user", f"{update} Can you write a quick message to the group?"),
        ("assistant", """Here's a message you can send:

Hi all! The picnic is on for Sunday at noon by the bandstand. I've planned food for 10 people,
so just bring a blanket and something to drink."""),
    ]


def _reunion(invitation: str) -> Turns:
    """A head count the user raised, then an invitation that counts the people as guests."""
    return [
        ("user", "Organising a school reunion dinner in a hotel function room, about 50 "
                 "people. What should I budget for?"),
        ("assistant", "A three-course dinner in a hotel function room usually costs £45-60 a "
                      "head, plus a room hire fee."),
        ("user", "Update: more classmates replied, so we're now at 70 people. Can you write "
                 "the invitation email?"),
        ("assistant", f"""Here you go:

Dear classmate,

Twenty years on, it's time to catch up! {invitation}

Please reply by 1 May so we can confirm numbers with the hotel."""),
    ]


MEETUP_BUDGET: Turns = [
    ("user", "Organising a customer meetup in Austin, about 40 people, budget $4k. What do I "
             "need?"),
    ("assistant", "Book a private room in a brewery, order tacos, and print name tags."),
    ("user", "Update: the budget goes up to $5.5k. Can you give me a breakdown?"),
    ("assistant", """Sure:

| Item | Estimate |
|---|---|
| Venue and food | $4,000 |
| Printing and name tags | $300 |
| Swag | $600 |

That keeps you just under $5.5k."""),
]

# two things of one kind named by symbols: "the gate X AND Y" is not "the gate X OR Y"
NAMED_BY_SYMBOLS: Turns = [
    ("user", "If a is false and b is true, what is the truth value of a OR b?"),
    ("assistant", "One part being true is enough: the statement a OR b is true."),
    ("user", "And a AND b?"),
    ("assistant", "Since a is false and b is true, the statement a AND b is false."),
]

# a claim about two alternatives together says nothing of either one
ALTERNATIVES: Turns = [
    ("user", "We land in the village late on Sunday. Where can we get food?"),
    ("assistant", "The bakery or the cafe on the square is open on Sunday evenings, so you "
                  "will find something."),
    ("user", "Which one should we try first?"),
    ("assistant", "Try the cafe first: the bakery is closed on Sunday evenings in winter."),
]

# three alternatives with an Oxford comma: the comma before "or" is the list's own
ALTERNATIVES_LISTED: Turns = [
    ("user", "We land in the village late on Sunday. Where can we get food?"),
    ("assistant", "The pharmacy, the bakery, or the cafe on the square is open on Sunday "
                  "evenings."),
    ("user", "Which one should we try first?"),
    ("assistant", "Try the cafe first: the pharmacy is closed on Sunday evenings in winter."),
]

def _cattery(answer: str) -> Turns:
    """A price per night said, the stay's length given, then a total worked from a price."""
    return [
        ("user", "How much does a cattery in Leeds charge to board one cat?"),
        ("assistant", "A cattery in Leeds usually charges about £14 per night for one cat, "
                      "food included."),
        ("user", "We're away for 9 nights. What will it come to?"),
        ("assistant", answer),
    ]


def _rent(answer: str) -> Turns:
    """The user's own rent, then advice that works from a rent."""
    return [
        ("user", "My rent is $1,400 a month and I take home about $3,800. How should I "
                 "split the rest?"),
        ("assistant", "A common rule of thumb is 50/30/20: needs, wants and savings."),
        ("user", "What should I cut first?"),
        ("assistant", answer),
    ]


FALSE_ALARM_CASES: dict[str, Turns] = {
    # the lead phrase restates the price rightly; the total is its own number
    "calculation_from_the_price_said_again": _cattery(
        "At £14 per night for one cat, 9 nights comes to £126."),
    # an age "at" which something happens is a stage, not the child's age said again
    "lead_phrase_names_a_later_stage": [
        ("user", "My baby is 2 months old."),
        ("assistant", "Thanks for the details. What would you like to know?"),
        ("user", "How much will she nap later?"),
        ("assistant", "At 6 months old, your baby will nap 3 times a day for a total of 3 to "
                      "4 hours."),
    ],
    # the user asked what another value would mean: the answer works from that one
    "lead_phrase_answers_a_what_if": [
        ("user", "I earn $4,000 a month after tax."),
        ("assistant", "Thanks, noted."),
        ("user", "What if I get the promotion?"),
        ("assistant", "On $5,000 a month after tax, you could save $1,000, spend $1,500 on "
                      "rent and $2,500 on the rest."),
    ],
    # the user supposed another rent: "your $1,700 rent" is the one asked about
    "users_own_value_in_a_what_if": [
        ("user", "My rent is $1,400 a month and I take home $4,000."),
        ("assistant", "Thanks, noted. That's 35% of your pay."),
        ("user", "What if the landlord raises it next year?"),
        ("assistant", "Then with your $1,700 rent, housing would take 43% of your $4,000, well "
                      "over the 30% guideline."),
    ],
    # a target in a summary list: the user's own figure as it should become
    "users_own_value_as_a_target": [
        ("user", "I walk about 6,000 steps a day. How do I get fitter?"),
        ("assistant", "Add a 10-minute walk after lunch and take the stairs where you can."),
        ("user", "Summarize the plan."),
        ("assistant", "**Targets**\n\n- Your 10,000 steps a day target\n- 2 strength "
                      "sessions a week"),
    ],
    # an item of a timeline: what the user's savings will be then
    "users_own_value_in_a_plan_item": [
        ("user", "I have $4,000 in savings and I put away $400 a month."),
        ("assistant", "Nice habit. In a year you'll have about $8,800 plus interest."),
        ("user", "Which milestones should I look forward to?"),
        ("assistant", "- **Month 3:** your $5,200 in savings covers a month of rent.\n"
                      "- **Month 11:** your $8,400 in savings is a solid emergency fund."),
    ],
    # a question about stretching the budget: the user's cap and another figure
    "users_budget_in_a_question_about_stretching_it": [
        ("user", "I need a laptop for college, my budget is max $800."),
        ("assistant", "The IdeaPad Slim 5 and the Acer Swift Go are both good picks."),
        ("user", "Which one lasts longer on battery?"),
        ("assistant", "The IdeaPad lasts about 12 hours, the Acer about 9. At your budget of "
                      "$1,000, would the Zenbook 14 be better? Only if you can stretch."),
    ],
    # the rest of the sentence sets the opening value against the one in use
    "lead_phrase_offers_an_alternative": [
        ("user", "I pay $90 a month for my phone plan."),
        ("assistant", "Thanks, noted."),
        ("user", "Could you look at my phone bill?"),
        ("assistant", "At $40 a month for your phone plan, 12 months comes to $480, saving you "
                      "$600 a year."),
    ],
    # a scenario's rate is a case the answer sets, not the rate said before
    "lead_phrase_sets_a_scenario_rate": [
        ("user", "What do stock index funds return?"),
        ("assistant", "Broad stock index funds have returned about 10% a year on average."),
        ("user", "And if I'm more cautious with my numbers?"),
        ("assistant", "At a 6% annual return for index funds, $10,000 grows to about "
                      "$17,900 in 10 years."),
    ],
    "a_claim_about_alternatives": ALTERNATIVES,
    "a_claim_about_listed_alternatives": ALTERNATIVES_LISTED,
    "things_named_by_symbols": NAMED_BY_SYMBOLS,
    # the row names the old count beside the new one: it follows the update
    "row_compares_the_replaced_count": _kids_shopping("Pizza for 8 kids instead of 12 kids"),
    # the row speaks of the old count as past
    "row_recalls_the_replaced_count": _kids_shopping(
        "Two large pizzas (originally planned for 12 kids)"),
    # two counts of kids before the update: which one it changed is open
    "update_with_two_earlier_counts": [
        ("user", "Planning my son's party at home: we have 2 kids of our own, and 12 kids "
                 "coming. Ideas?"),
        KIDS_PARTY_PLAN, KIDS_UPDATE,
        ("assistant", "Here's the list: two large pizzas, a chocolate cake and small prizes. "
                      "Your 2 kids can help hand out the treasure hunt prizes.")],
    # the new budget replaces the budget, not a price that happens to equal the old one
    "revised_budget_leaves_other_prices": MEETUP_BUDGET,
    # more of it is an addition to the amount, not the amount said again
    "recipe_adds_more_of_an_ingredient": _risotto(
        "Add 100 g more arborio rice for the risotto if you're very hungry."),
    # the user asked about another length of lesson: "hour-long" is a duration the user
    # gave, so the answer's price is another thing's
    "user_asks_about_a_longer_lesson": [
        ("user", "What do piano teachers charge?"),
        ("assistant", "A 30-minute piano lesson is typically around $35."),
        ("user", "What about hour-long lessons?"),
        ("assistant", "Hour-long piano lessons usually cost around $60."),
    ],
    # a head count may move a price per head: caterers have volume tiers and minimums
    "head_count_moves_the_price_per_head": _offsite_lunch(
        "We'll be 300 people, so the caterer's volume price applies. What's the total?",
        "At £18 per head, 300 people comes to £5,400 for the buffet lunch."),
    # progress, not a head count: "we're at 8 now" of 20 laps, "it's 20 degrees now"
    "progress_is_no_new_count": [
        ("user", "I'm swimming 20 laps today at the pool."),
        ("assistant", "Great, pace yourself across the 20 laps."),
        ("user", "We're at 8 now."),
        ("assistant", "Only 12 of your 20 laps left, keep going."),
    ],
    "a_reading_now_is_no_correction": [
        ("user", "It was 15 degrees this morning."),
        ("assistant", "15 degrees is mild for a run."),
        ("user", "It's 20 degrees now."),
        ("assistant", "This morning it was 15 degrees, so you had the cooler run."),
    ],
    # another number in the sentence: the bare "2" is no head count
    "a_score_is_no_head_count": [
        ("user", "Our team has 11 players."),
        ("assistant", "11 players is a full side."),
        ("user", "We're at 2 now, the score is 2-1."),
        ("assistant", "With 11 players you can press high."),
    ],
    # the user's own new price per head licenses the total
    "caterers_quote_replaces_the_price_per_head": _offsite_lunch(
        "We'll be 60 people, and the caterer quoted us £32 per head. What's the total?",
        "At £32 per head, 60 people comes to £1,920 for the lunch."),
    # the sentence names the new head count beside the old one: it follows the update
    "guests_beside_the_raised_head_count": _reunion(
        "The room seats 50 guests at round tables, so with 70 people we'll use the long "
        "banquet layout."),
    "quoted_words_of_someone_else": QUOTED_READER,
    "speech_about_someone_else": SPEECH_FOR_DAD,
    "draft_agrees_with_the_user": DRAFT_AGREES,
    "draft_follows_the_users_update": DRAFT_AFTER_UPDATE,
    "story_narrator_is_not_the_user": SAILOR_STORY,
    "two_hotels_with_own_prices": TWO_HOTELS,
    "policy_means_different_things": TWO_POLICIES,
    "section_headings_scope_lists": HEADING_SECTIONS,
    "hedged_answer_then_plain_restatement": HEDGE_RESTATED,
    "itinerary_day_headings_and_numbered_steps": ITINERARY,
    "code_blocks_with_numbers": CODE_BLOCKS,
    "summary_repeats_a_sentence": SUMMARY_REPEATS,
    **{f"user_update_{k}": v for k, v in USER_UPDATES.items()},
    "template_placeholders_and_quoted_fiction": TEMPLATE_AND_QUOTE,
    "role_play": ROLE_PLAY,
    "hypotheticals_and_goals": HYPOTHETICAL_AND_GOALS,
    "numeric_misreads": NUMERIC_MISREADS,
    "different_time_frames": TIME_FRAMES,
}


@pytest.mark.parametrize("turns", FALSE_ALARM_CASES.values(), ids=FALSE_ALARM_CASES.keys())
def test_realistic_answer_raises_no_certificate(turns: Turns) -> None:
    certs = certify(turns)
    assert certs == [], explain(certs)


@pytest.mark.parametrize("name", ["signing_time", "thursday", "lisbon"])
def test_without_the_user_update_the_same_answer_is_certified(name: str) -> None:
    """Control for (4): it is the update, not a blind spot, that keeps those answers silent."""
    first, answer, _update, follow_up = USER_UPDATES[name]
    certs = certify([first, answer, ("user", "Thanks, carry on."), follow_up])
    assert [c.turn_index for c in certs] and {c.turn_index for c in certs} == {3}, explain(certs)


# --- recall: a certificate on the right turn citing the right earlier turn ------------------

BUDGET: Turns = [
    ("user", "I want a long weekend in Rome in October. My budget is £600 max for flights and "
             "hotel."),
    ("assistant", """Rome in October is a great idea — the weather is still warm and the crowds
are smaller. Here's how to stay within budget:

- **Flights:** return flights from London to Rome in October cost about £90–£150 if you book
  six weeks ahead. Ryanair and easyJet fly to Ciampino; BA flies to Fiumicino.
- **Hotel:** a three-star hotel near Termini costs around £90 per night, so three nights is
  about £270.
- **Getting around:** a 72-hour Roma Pass costs €58.50 and includes public transport.

That leaves some room for food and sights. Would you like hotel names?"""),
    ("user", "Yes please, and suggest a day trip."),
    ("assistant", """Here are some ideas:

**Hotels**
1. **Hotel Artemide** on Via Nazionale — elegant, about £160 per night.
2. **The Beehive** near Termini — simple and friendly, about £85 per night.

**Day trip**
Orvieto is 75 minutes away by train and tickets cost about €8 each way. The cathedral's
façade is spectacular and the underground caves tour takes an hour.

With your budget of around £1,000 for flights and hotel, you could comfortably pick Hotel
Artemide for all three nights and still fly with BA."""),
]

USER_CITY: Turns = [
    ("user", "I live in Lisbon and I'm looking for a weekend hobby. Any ideas?"),
    ("assistant", """Hi! Here are a few ideas that suit a weekend schedule:

1. **Surfing** — beginner lessons on the coast cost about €30 per session.
2. **Pottery** — many studios offer four-week courses on Saturday mornings.
3. **Photography walks** — old neighbourhoods with steep streets make great subjects.
4. **Running club** — free groups meet early on Sunday mornings.

Which of these sounds most like you?"""),
    ("user", "Pottery sounds nice. How do I get started?"),
    ("assistant", """Great pick! Here's how to start:

**Step 1: Find a studio.** Since you live in Madrid, look at studios in Lavapiés and
Malasaña — several run beginner courses on Saturday mornings for about €120 a month,
clay and firing included.

**Step 2: Book a trial class.** Most studios offer a single two-hour taster session for
around €35, so you can see whether you like the wheel or hand-building better.

**Step 3: Get basic tools.** A starter kit costs about €15: a wire cutter, a sponge, a
needle tool and a couple of ribs.

Wear clothes you don't mind getting dirty, and keep your nails short — it helps a lot on
the wheel. Have fun!"""),
]

USER_CAR: Turns = [
    ("user", "My car is a Toyota Corolla. Should I get comprehensive insurance?"),
    ("assistant", """It depends on the car's value and your savings. Here's a quick way to decide:

- **Car value:** a 2015 Corolla is worth roughly £6,000–£8,000 today.
- **Premium difference:** comprehensive cover usually costs only a little more than
  third-party, fire and theft, and is sometimes cheaper.

If you couldn't easily replace the car from savings, comprehensive cover is worth it."""),
    ("user", "How can I lower the premium?"),
    ("assistant", """Here are the most effective ways:

1. **Raise the voluntary excess** to £250–£500; it can cut the premium by 10–15%.
2. **Pay annually** rather than monthly to avoid interest.
3. **Add a telematics box** if you mostly drive at quiet times.

Because your car is a Honda Civic, it is cheap to insure, and an approved immobiliser often
lowers the premium further. Finally, compare at least three quotes on a comparison site."""),
]

MUSEUM: Turns = [
    ("user", "I'm visiting Vienna next Monday. Is the Kunsthistorisches Museum worth it?"),
    ("assistant", """Absolutely — it's one of the great art museums of Europe. A few things to
know:

- **Opening:** the museum is open on Mondays from June to August, 10:00 to 18:00.
- **Tickets:** adult tickets cost €21; under-19s go free.
- **Highlights:** the Bruegel room, Vermeer's *Art of Painting*, and the café under the dome.

Plan about three hours. If you're going in the summer, Monday is a good day since it's
quieter than the weekend."""),
    ("user", "Great, we're going in July. What else could we do that day?"),
    ("assistant", """Here's an idea for the rest of your Monday:

1. **Morning:** coffee and cake at Café Central.
2. **Midday:** walk through the Hofburg and the Volksgarten.
3. **Afternoon:** the Naturhistorisches Museum across the square.

One important change to the plan: the museum is closed on Mondays, so swap the Kunsthistorisches
Museum to Tuesday and use Monday for the Hofburg and the Naturhistorisches Museum instead.
In the evening, the Prater is a fun way to end the day with a ride on the Giant Ferris
Wheel."""),
]

PARTY_SIZE: Turns = [
    ("user", "Please plan a dinner for 6 people on Saturday in Manchester's Northern Quarter."),
    ("assistant", """Sure! Here are some options for 6 people on Saturday:

- **Mackie Mayor** — food hall, no bookings, good for flexible groups.
- **Rudy's Pizza** — walk-in only, so expect a wait on Saturdays.
- **Hawksmoor** — takes bookings for 6; around £60 per head.

I'd book Hawksmoor for 6 people at 19:30."""),
    ("user", "Make it 4 people instead of 6."),
    ("assistant", "Got it, 4 people. Do you still want Hawksmoor?"),
    ("user", "Yes, and what should we order?"),
    ("assistant", """Great! Here's what I'd suggest at Hawksmoor:

**Starters:** the bone marrow with onions and the potted beef to share.

**Mains:** a large chateaubriand to share is ideal, plus a ribeye for anyone who wants their
own steak.

**Sides:** triple-cooked chips, creamed spinach and macaroni cheese.

I've planned the booking for 6 people at 19:30 on Saturday, so order two chateaubriands and
four sides. Expect around £360 in total before drinks and service."""),
]

MEAL_PLAN_TABLE: Turns = [
    ("user", "Could you plan five dinners for next week? Quick ones, I'm allergic to shellfish."),
    ("assistant", """Of course! Here are five quick dinners, each under 30 minutes.

| Day | Dinner | Time |
|---|---|---|
| Monday | Lemon chicken with rice | 25 min |
| Tuesday | Lentil and spinach dal | 30 min |
| Wednesday | Garlic prawn linguine | 20 min |
| Thursday | Halloumi and vegetable traybake | 30 min |
| Friday | Beef tacos | 20 min |

Want a shopping list for the week?"""),
]

NUT_ALLERGY_CAKE: Turns = [
    ("user", "Baking for my son's 8th birthday. He has a nut allergy. Any easy cake ideas?"),
    ("assistant", """Happy birthday to him! A **lemon drizzle traybake** is easy and feeds a crowd.

**Ingredients**
- 225 g softened butter
- 225 g caster sugar
- 4 eggs
- 175 g self-raising flour
- 50 g ground almonds (keeps it moist)

Bake at 180°C for 30-35 minutes, then pour over the lemon syrup while it's warm."""),
]

RECALL_CASES: dict[str, tuple[Turns, int, int]] = {
    # a total worked from the earlier price, said again wrongly in its lead phrase
    "price_per_night_said_again_wrongly_in_a_calculation": (_cattery(
        "At £19 per night for one cat, 9 nights comes to £171."), 3, 1),
    # "your 144 sq ft deck" presupposes the size, in a sentence a condition keeps from
    # being asserted as a whole
    "size_said_again_as_the_users_own_in_a_conditional_sentence": ([
        ("user", "How much stain for a 10x12 deck?"),
        ("assistant", "A 10×12 deck is **120 sq ft**. One gallon usually covers 150-300 sq "
                      "ft, so one gallon is enough for one coat."),
        ("user", "The wood is quite old and grey. Anything different?"),
        ("assistant", "Old wood soaks up more stain. For your **144 sq ft deck**, that means "
                      "about 1 gallon per coat, plus a bit more if you're doing railings."),
    ], 3, 1),
    # amounts written with the currency code first are values, not numbered names
    "price_with_currency_code_first_said_again_wrongly": ([
        ("user", "What does a 60-minute massage cost at a day spa in Calgary?"),
        ("assistant", "Around **CAD 120** for a 60-minute relaxation massage at a mid-range "
                      "day spa."),
        ("user", "Do people tip?"),
        ("assistant", "Yes, 15-20% is usual. On a CAD 160 60-minute relaxation massage, "
                      "that comes to about CAD 24-32."),
    ], 3, 1),
    # advice that works from the user's rent, misremembered; "other" in the advice once
    # read the whole sentence as about another thing than the user's rent
    "user_rent_said_again_wrongly_before_advice": (_rent(
        "With rent at $1,700 a month, I'd trim your other fixed costs first, like "
        "subscriptions and insurance."), 3, 0),
    # the dish that breaks the allergy sits in a table row, not in a sentence
    "shellfish_allergy_then_prawns_in_a_table": (MEAL_PLAN_TABLE, 1, 0),
    # "a nut allergy" names the food before the word, not after "allergic to"
    "nut_allergy_then_ground_almonds": (NUT_ALLERGY_CAKE, 1, 0),
    # a profile drafted for the user gives them years they do not have
    "user_has_8_years_then_drafted_summary_says_12": (
        [NURSE_ASKS, ("assistant", _nurse_summary("12"))], 1, 0),
    "user_budget_600_then_around_1000": (BUDGET, 3, 0),
    "user_lives_in_lisbon_then_madrid": (USER_CITY, 3, 0),
    "user_car": (USER_CAR, 3, 0),
    "museum_open_then_closed_on_mondays": (MUSEUM, 3, 1),
    "party_size_replaced_then_old_value": (PARTY_SIZE, 5, 2),
    # a table row goes back to the head count the user replaced
    "replaced_count_back_in_a_table_row": (_kids_shopping("Pizza for 12 kids"), 3, 2),
    # the same after a user's "2-4pm", once read as a subtraction that hid the "12 kids"
    "replaced_count_after_a_hyphen_range": (
        [("user", KIDS_PARTY[1].replace("from 2 to 4pm", "2-4pm")),
         *_kids_shopping("Pizza for 12 kids")[1:]], 3, 2),
    # "add the 300 g" puts in the recipe's amount, said differently: no addition
    "recipe_amount_changed_in_the_method": (_risotto(
        "Add the 300 g of arborio rice for the risotto once the onion is soft, then the "
        "stock a ladle at a time."), 3, 1),
    # the user's new count is a bare number, after an increment ("three more members")
    "raised_bare_head_count_back_in_a_message": (_picnic(
        "Scratch that, three more members signed up, so we're at 13 now."), 3, 2),
    "head_count_said_as_now_back_in_a_message": (_picnic(
        "Three more members signed up, so we're now at 13."), 3, 2),
    # the invitation goes back to the head count the user raised, counting "guests"
    "raised_head_count_back_as_guests": (
        _reunion("We're keeping it to about 50 guests, so there's room to talk."), 3, 2),
}


@pytest.mark.parametrize("turns, turn, cites", RECALL_CASES.values(), ids=RECALL_CASES.keys())
def test_realistic_contradiction_is_certified(turns: Turns, turn: int, cites: int) -> None:
    certs = certify(turns)
    assert (turn, cites) in {(c.turn_index, c.conflicts_with) for c in certs}, explain(certs)
    assert all(c.turn_index == turn for c in certs), explain(certs)


def test_one_offending_word_against_two_rules_of_one_turn_is_one_certificate() -> None:
    turns: Turns = [
        ("user", "Lunch box ideas please. My son is allergic to peanuts. His school is "
                 "nut-free too."),
        ("assistant", "Try ants on a log: celery sticks filled with peanut butter and raisins."),
    ]
    certs = certify(turns)
    assert [(c.turn_index, c.conflicts_with) for c in certs] == [(1, 0)], explain(certs)


# --- recall gaps the current engine misses (documented, strict: a fix must update them) -----

def _car_gap(user: str, later: str) -> Turns:
    return [("user", user), USER_CAR[1], USER_CAR[2],
            ("assistant", USER_CAR[3][1].replace("Because your car is a Honda Civic", later))]


KNOWN_GAPS: dict[str, tuple[Turns, int, int, str]] = {
    "model_year_inside_user_fact": (
        _car_gap("My car is a 2015 Toyota Corolla. Should I get comprehensive insurance?",
                 "Because your car is a Honda Civic"),
        3, 0, "a model year ('a 2015 Toyota Corolla', also '... from 2015') hides the user fact"),
    "drive_verb_user_fact": (
        _car_gap("I drive a Toyota Corolla. Should I get comprehensive insurance?",
                 "Because you drive a Honda Civic"),
        3, 0, "'I drive X' / 'you drive Y' is not read as a user fact"),
    "user_age": (
        [("user", "I'm 34 and I've never had a claim. Should I get comprehensive insurance?"),
         USER_CAR[1], USER_CAR[2],
         ("assistant", USER_CAR[3][1].replace(
             "Finally, compare", "At 52, you'll also get the lower rates insurers give to "
             "experienced drivers. Finally, compare"))],
        3, 0, "a user's age ('I'm 34') is not compared with a later 'At 52'"),
    "whether_clause_hides_premise": (
        [USER_CAR[0], ("assistant", "Since your car is a Honda Civic, check whether it's fitted "
                                    "with an approved immobiliser.")],
        1, 0, "a 'whether' clause in the main clause silences the 'since' premise"),
    "possessive_presupposition": (
        [USER_CAR[0], ("assistant", "Your Honda Civic is cheap to insure, so third-party cover "
                                    "is rarely worth the saving.")],
        1, 0, "'your Honda Civic' presupposes the car but is not read as a claim about it"),
}


@pytest.mark.parametrize(
    "turns, turn, cites",
    [pytest.param(t, i, j, marks=pytest.mark.xfail(strict=True, reason=why))
     for t, i, j, why in KNOWN_GAPS.values()],
    ids=KNOWN_GAPS.keys(),
)
def test_known_recall_gap(turns: Turns, turn: int, cites: int) -> None:
    certs = certify(turns)
    assert (turn, cites) in {(c.turn_index, c.conflicts_with) for c in certs}, explain(certs)


def test_a_sentence_wholly_in_quotes_is_words_to_say_not_the_answers_own() -> None:
    """ "'It's not that the car needs no maintenance ...'" is a line for the user to say; it
    does not negate "Electric cars need a lot less maintenance" (paged before)."""
    turns: Turns = [
        ("user", "Just got my first EV, a used Kia Niro. What maintenance does it need?"),
        ("assistant", "Electric cars need a lot less maintenance than combustion cars, but "
                      "they're not maintenance-free. Check the tyres and the brake fluid."),
        ("user", "lol my dad says I should get the oil changed every 5000 miles, should I?"),
        ("assistant", "Your dad means well, but the Niro has no engine oil to change.\n\n"
                      "### What to tell your dad\n\"It's not that the car needs *no* "
                      "maintenance — it just needs different maintenance.\" You'll still "
                      "save money on servicing."),
    ]
    certs = certify(turns)
    assert not certs, explain(certs)


def test_the_cream_after_its_substitute_was_named_is_no_page() -> None:
    """ "Oat or soy-based whipping creams" ... "Whip the cream": the cream may be the
    substitute, a warning at most; a cream named with nothing before it still pages."""
    def turns(earlier: str) -> Turns:
        return [
            ("user", "I'm lactose intolerant (pretty badly). Can you help me make a trifle?"),
            ("assistant", f"Of course! For the cream layer: {earlier} Both whip well."),
            ("user", "Great, can you give me the steps for the day?"),
            ("assistant", "1. Make the jelly in the morning.\n2. Whip the cream and spread "
                          "it over the custard a few hours before serving."),
        ]
    named = [c for c in certify(turns("Oat or soy-based whipping creams are widely "
                                      "available.")) if c.turn_index == 3]
    assert named and all(c.severity != "page" for c in named), explain(named)
    bare = [c for c in certify(turns("Chill a tin of coconut milk overnight.")) if
            c.turn_index == 3]
    assert any(c.severity == "page" for c in bare), explain(bare)


def test_a_time_over_the_users_limit_is_a_warning_and_a_period_is_none() -> None:
    """ "20 minutes max, start to finish" / "braise it for about 3 hours": certified as a
    warning (what it times may be one step); "every 1-2 weeks" is how often, not how long."""
    turns: Turns = [
        ("user", "I need weeknight dinners that take 20 minutes max, start to finish."),
        ("assistant", "Here are three quick ideas: a stir-fry, tacos and a frittata. Each "
                      "takes about 15 minutes."),
        ("user", "Nice. Anything heartier for Thursday?"),
        ("assistant", "Classic pot roast: brown a chuck roast, then braise it in the oven "
                      "for about 3 hours with carrots. Make extra every 1–2 weeks."),
    ]
    certs = [c for c in certify(turns) if c.turn_index == 3]
    assert [(c.detector, c.severity) for c in certs] == [("constraint", "warn")], explain(
        certs)
    assert "3 hours" in certs[0].explanation
