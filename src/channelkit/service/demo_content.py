"""The words the demo workspace is made of: people, channels, and post templates."""

from __future__ import annotations

FIRST_NAMES = (
    "Ana", "Ben", "Chloé", "Dev", "Elif", "Femi", "Greta", "Hiro", "Isabel", "Jonas", "Kemal",
    "Lena", "Mateo", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Tariq", "Uma",
    "Viktor", "Wen", "Ximena", "Yusuf", "Zoe", "Amara", "Bruno", "Carla", "Daniel", "Emma",
    "Farah", "Gustav", "Hannah", "Ivan", "Julia", "Kofi", "Laura", "Malik", "Nora", "Oskar",
    "Paula", "Rahul", "Sara", "Tomás", "Ulla", "Vera", "Will", "Yara", "Zeynep",
)  # fmt: skip
LAST_NAMES = (
    "García", "Müller", "Okafor", "Tanaka", "Novak", "Schmidt", "Rossi", "Kowalski", "Dubois",
    "Silva", "Johansson", "Yilmaz", "Nguyen", "Patel", "Kim", "Haddad", "Costa", "Fischer",
    "Moreau", "Larsen", "Mensah", "Ivanova", "Chen", "Andersen", "Bauer",
)  # fmt: skip

TEAMS = (("comms", "Internal Comms"), ("engineering", "Engineering"), ("people", "People Ops"))

# slug, name, description, visibility, team (for team channels), audience, weight, tags
CHANNELS = (
    ("company-news", "Company News", "Announcements for everyone at Northwind.",
     "organization", None, 1400, 9, ("announcement", "leadership", "strategy", "customers")),
    ("all-hands", "All Hands", "Agendas, recordings and follow-ups of the monthly all-hands.",
     "organization", None, 1250, 3, ("all-hands", "leadership", "q-and-a", "announcement")),
    ("it-security", "IT & Security", "Phishing warnings, patches, outages and how-tos.",
     "organization", None, 1100, 7, ("security", "outage", "reminder", "how-to", "it")),
    ("benefits-hr", "Benefits & HR", "Benefits, payroll, leave and policy updates.",
     "organization", None, 1000, 5, ("benefits", "policy", "payroll", "reminder")),
    ("social", "Social & Events", "Meetups, celebrations, clubs and charity drives.",
     "organization", None, 900, 6, ("social", "event", "celebration", "charity")),
    ("engineering-updates", "Engineering Updates", "Releases, incidents and RFCs.",
     "team", "engineering", 160, 8, ("release", "incident", "rfc", "platform", "outage")),
    ("comms-desk", "Comms Desk", "Planning for internal campaigns and the editorial calendar.",
     "team", "comms", 35, 3, ("editorial", "campaign", "review", "reminder")),
    ("people-ops", "People Ops", "Hiring, onboarding and workplace logistics.",
     "team", "people", 45, 3, ("hiring", "onboarding", "workplace", "policy")),
    ("leadership-circle", "Leadership Circle", "Private notes for the leadership group.",
     "private", None, 9, 2, ("leadership", "strategy", "budget", "confidential")),
    ("incident-room", "Incident Room", "Live coordination of major incidents.",
     "private", None, 12, 2, ("incident", "outage", "postmortem", "security")),
    ("office-move-2026", "Office Move 2026", "The move to the new Harbour Street office.",
     "organization", None, 800, 1, ("workplace", "event", "reminder")),
)  # fmt: skip

TITLES = {
    "announcement": ("Welcoming {name} as our new {role}", "{quarter} results are in",
                     "We are opening an office in {city}", "New partnership with {company}"),
    "leadership": ("A note from the CEO on {topic}", "Leadership offsite takeaways: {topic}"),
    "strategy": ("Our {quarter} priorities", "Why we are investing in {topic}"),
    "customers": ("Customer story: how {company} uses our platform",
                  "{company} renewed for three more years"),
    "all-hands": ("{month} all-hands: agenda and dial-in", "{month} all-hands recording"),
    "q-and-a": ("Answers to your all-hands questions on {topic}",),
    "security": ("Phishing alert: fake {company} invoices", "Patch Tuesday: update {tool} today",
                 "Turn on passkeys for {tool}"),
    "outage": ("Resolved: {tool} was unavailable for {minutes} minutes",
               "Degraded performance on {tool}"),
    "reminder": ("Reminder: {task} by Friday", "Last call: {task}"),
    "how-to": ("How to {task} in five minutes",),
    "it": ("New laptops for the {team} team", "{tool} moves to single sign-on"),
    "benefits": ("Open enrolment starts {month} 1", "New wellbeing budget: what is covered"),
    "policy": ("Updated travel policy", "Changes to parental leave from {month}"),
    "payroll": ("Payroll date moves to the {day} this month",),
    "social": ("Friday social at {place}", "Join the {club} club"),
    "event": ("Save the date: summer party at {place}", "Hackathon week starts {month} 12"),
    "celebration": ("Happy 10th birthday, Northwind!",
                    "Congratulations to {name} on {years} years"),
    "charity": ("Our {month} charity drive raised {amount}",),
    "release": ("Release {version}: what shipped", "{tool} {version} is live"),
    "incident": ("Incident report: {tool} latency", "Major incident: {tool} errors"),
    "rfc": ("RFC: moving {tool} to {tool2}", "RFC: on-call rota changes"),
    "platform": ("Platform roadmap for {quarter}", "Deprecating {tool} v1"),
    "editorial": ("Editorial calendar for {month}", "Style guide refresh"),
    "campaign": ("Campaign brief: {topic}", "Results of the {topic} campaign"),
    "review": ("Please review: {topic} announcement draft",),
    "hiring": ("We are hiring {count} {role}s", "Referral bonus doubled for {role}s"),
    "onboarding": ("Onboarding cohort for {month}", "New buddy programme"),
    "workplace": ("Desk booking changes at {place}", "Moving day checklist"),
    "budget": ("{quarter} budget review", "Headcount plan for {quarter}"),
    "confidential": ("Board meeting prep: {topic}",),
    "postmortem": ("Postmortem: {tool} outage on {month} {day}",),
}  # fmt: skip

FILL = {
    "name": ("Ana García", "Kofi Mensah", "Wen Chen", "Laura Fischer", "Omar Haddad"),
    "role": ("Head of Design", "VP Engineering", "Chief People Officer", "data engineer",
             "support specialist", "product manager"),
    "quarter": ("Q1", "Q2", "Q3", "Q4"),
    "city": ("Lisbon", "Toronto", "Nairobi", "Singapore"),
    "company": ("Contoso", "Fabrikam", "Globex", "Initech", "Umbrella"),
    "topic": ("remote work", "AI tooling", "sustainability", "customer support", "pricing",
              "hiring", "security culture"),
    "month": ("January", "February", "March", "April", "May", "June", "July", "August",
              "September", "October", "November", "December"),
    "tool": ("VPN", "Jira", "the wiki", "CI", "email", "the billing API", "Slack", "Okta"),
    "tool2": ("Kubernetes", "Postgres 17", "GitHub Actions"),
    "minutes": ("12", "25", "40", "90"),
    "task": ("complete security training", "submit expenses", "update your emergency contact",
             "book your desk", "finish performance reviews"),
    "team": ("design", "sales", "support", "finance"),
    "day": ("25th", "28th", "15th"),
    "place": ("the rooftop", "Harbour Street", "the canteen", "Café Lumen"),
    "club": ("running", "book", "chess", "climbing"),
    "years": ("5", "10", "15"),
    "amount": ("€12,400", "€8,950", "€21,300"),
    "version": ("4.2", "4.3", "5.0", "5.1"),
    "count": ("three", "five", "two"),
}  # fmt: skip

PARAGRAPHS = (
    "Thanks to everyone who helped make this happen. The details are below; reply in the "
    "comments if anything is unclear.",
    "This affects **everyone** in the company, so please read to the end.",
    "We will share more at the next all-hands. Until then, your manager can answer questions.",
    "The change takes effect next Monday. Nothing changes for you before then.",
    "If you run into problems, open a ticket in the [service desk](https://help.example.com) "
    "and mention this post.",
    "Slides and the recording are in the [shared drive](https://drive.example.com/all-hands).",
    "A big thank-you to the teams in Lisbon and Toronto for the late nights.",
)
BULLETS = (
    "Read the FAQ first", "Book a slot in the calendar", "Check your inbox for the invite",
    "Update the app to the latest version", "Ask your buddy for a walkthrough",
    "Bring your badge", "Use the new expense category", "Add it to your team's OKRs",
)  # fmt: skip
