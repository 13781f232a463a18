"""Every default channelkit uses, in one place.

Each part of the flow has its own section; add new defaults to the section of the part that
owns them, never as a literal in the code that uses them.
"""

from __future__ import annotations

from channelkit._spec import PAGE_LIMIT_MAX

# --- Shared (the interface contract itself is in channelkit._spec) ------------------------
ENV_BASE_URL = "CHANNELKIT_BASE_URL"
ENV_API_KEY = "CHANNELKIT_API_KEY"
ENV_CONNECT_RETRY = "CHANNELKIT_CONNECT_RETRY_SECONDS"  # the connection retry budget
ENV_MAX_RATE_LIMIT_WAIT = "CHANNELKIT_MAX_RATE_LIMIT_WAIT_SECONDS"  # 429 waits per call
ENV_READ_TIMEOUT = "CHANNELKIT_READ_TIMEOUT"  # --read-timeout: seconds to answer a request
ENV_LOG = "CHANNELKIT_LOG"
ENV_SMTP_URL = "CHANNELKIT_SMTP_URL"  # channelkit deliver: smtp://user:pass@host:port
LOGGER_NAME = "channelkit"


# --- Service (channelkit serve) ------------------------------------------------------------
SERVICE_HOST = "127.0.0.1"
SERVICE_PORT = 8000
SERVICE_DB_PATH = "channelkit-service.sqlite"
SERVICE_KEY_PREFIX = "ck_"
SERVICE_KEY_BYTES = 32
SERVICE_KEY_PLAN_DEFAULT = "enterprise"
SERVICE_KEY_USER_DEFAULT = "ana"
SERVICE_KEY_TEAM_DEFAULT = "comms"
SERVICE_EMAIL_DOMAIN = "example.com"
SERVICE_MAX_REQUEST_BYTES = 1_000_000
SERVICE_MAX_HEADER_BYTES = 64 * 1024  # request line and headers; more: 431 at once
SERVICE_REQUEST_TIMEOUT_SECONDS = 15.0  # from connecting (or the last response) to a whole request
SERVICE_LINGER_SECONDS = 2.0  # after a refusal: read and drop input so the answer is not reset
SERVICE_MAX_CONNECTIONS = 800  # open at once; beyond, new ones get 503 (below a 1024 fd limit)
SERVICE_CURSOR_MAC_BYTES = 16
SERVICE_SQLITE_BUSY_MS = 5_000
SERVICE_START_TIMEOUT_SECONDS = 10.0
SERVICE_FAULT_SLOW_SECONDS = 1.5
SERVICE_RATE_WINDOW_MIN_SECONDS = 0.05
SERVICE_FAULT_RETRY_AFTER_SECONDS = 1
SERVICE_FAULT_CLOCK_AHEAD_SECONDS = 600  # `reset_ahead`, `clock_ahead`: a clock 10 minutes fast
SERVICE_RATE_BUCKETS_MAX = 100_000  # forget finished windows beyond this many buckets
SERVICE_DEMO_SEED = 20261121
SERVICE_DEMO_DAYS = 180
SERVICE_DEMO_POSTS = 4_930
SERVICE_DEMO_SCHEDULED = 45
SERVICE_DEMO_DRAFTS = 25
SERVICE_CHANNEL_AUDIENCE = {"organization": 400, "team": 40, "private": 8}
ENGAGEMENT_HORIZON_DAYS = 21
ENGAGEMENT_READ_RATE = 0.45
ENGAGEMENT_PRIORITY_REACH = {"normal": 1.0, "high": 1.3, "urgent": 1.7}
ENGAGEMENT_TAG_REACH = {
    "announcement": 1.3,
    "security": 1.2,
    "leadership": 1.15,
    "benefits": 1.25,
    "outage": 1.35,
    "social": 0.85,
    "reminder": 0.8,
}

# --- Client -------------------------------------------------------------------------------
CLIENT_USER_AGENT = "channelkit-python"  # the package version is appended
CLIENT_TIMEOUT_SECONDS = 30.0  # read/write/pool
CLIENT_CONNECT_TIMEOUT_SECONDS = 5.0
CLIENT_MAX_CONNECTIONS = 20
CLIENT_MAX_RETRIES = 4  # per call, for failures other than 429 (those are bounded by time)
CLIENT_BACKOFF_BASE_SECONDS = 0.25  # full jitter: uniform(0, min(cap, base * 2**attempt))
CLIENT_BACKOFF_CAP_SECONDS = 8.0
# A service that refuses or drops connections (a restart, a deploy) is retried this long.
CLIENT_CONNECTION_RETRY_BUDGET_SECONDS = 60.0
CLIENT_MAX_RATE_LIMIT_WAIT_SECONDS = 120.0  # total 429 waiting per call before RateLimitError
CLIENT_RETRY_AFTER_MIN_SECONDS = 0.5  # "Retry-After: 0" means "under a second", not "now"
CLIENT_RETRY_AFTER_DEFAULT_SECONDS = 1.0  # a 429 without a usable Retry-After
CLIENT_PACING_RESET_MARGIN_SECONDS = 0.05  # wait this long past a computed window reset
CLIENT_PACING_POLL_SECONDS = 0.01  # while the first response of a window is awaited
CLIENT_DATE_HEADER_LAG_SECONDS = 2.0  # uvicorn caches Date ~1 s; more when its loop is busy
CLIENT_WAIT_LOG_SECONDS = 1.0  # waits at least this long are logged at INFO
CLIENT_MAX_EMPTY_PAGES = 20  # empty pages in a row, each saying "more", before a walk gives up
CLIENT_ERROR_SNIPPET_CHARS = 200  # of a non-JSON error body quoted in an exception
CLIENT_IDEMPOTENCY_KEY_PREFIX = "ck-"  # + a random UUID, once per logical POST

# --- Sync and warehouse -------------------------------------------------------------------
WAREHOUSE_PATH = "warehouse.duckdb"
# The sync writes a working copy beside the warehouse (warehouse.duckdb.sync) and switches it
# in when the run ends; readers keep reading the last committed file meanwhile.
WAREHOUSE_WORK_SUFFIX = ".sync"
# The working copy is made under this name (warehouse.duckdb.sync.part) and renamed once
# whole, so a run killed while copying leaves one file that the next run reuses, never more.
WAREHOUSE_SPARE_SUFFIX = ".part"
# A `.sync` that was not copied from the warehouse now in place (deleted, restored from a
# backup) is renamed to warehouse.duckdb.sync.aside-<8 hex> rather than switched in.
WAREHOUSE_ASIDE_SUFFIX = ".aside-"
# A connection that meets the file locked (the switch, a colleague's deliver) tries again
# for this long before it says so: the switch holds the lock for milliseconds.
WAREHOUSE_LOCK_WAIT_SECONDS = 2.0
WAREHOUSE_LOCK_RETRY_SECONDS = 0.02
SYNC_PAGE_LIMIT = PAGE_LIMIT_MAX  # the largest page allowed: fewest requests per row
SYNC_LOOKBACK_DAYS = 3  # recently published posts (views still move) and non-final days
SYNC_VIEW_NAMES_SHOWN = 5  # channels named when a narrower view is refused
SYNC_BATCH_ROWS = 5_000  # rows per committed batch (one checkpoint per batch)
SYNC_BATCH_SECONDS = 5.0  # ...or sooner, so a kill under a slow rate limit loses little
SYNC_QUEUE_BATCHES = 2  # fetched batches waiting for the writer: bounds memory
SYNC_DUCKDB_MEMORY_BYTES = 128 * 2**20  # DuckDB's cache while syncing (it spills beyond)...
# ...plus this much per row of a table with a primary key (storage/memory.py): measured
# 46 bytes per key of 1M random post ids alone, 76 per key with post_tags' keys beside
# them (1.3M keys, DuckDB's duckdb_memory(), December 2026); about twice that.
SYNC_KEY_INDEX_BYTES = 150
# ...up to DuckDB's own default share of the machine's memory (its limits page)
SYNC_MOST_MEMORY_SHARE = 0.8
SYNC_DUCKDB_THREADS = 1  # the writer's share: the fetching thread keeps the other core
SYNC_PROGRESS_MIN_WAIT_SECONDS = 0.5  # shorter pacing waits are not worth showing
# Without bars (a plain Python prompt): a line of progress at most this often.
SYNC_PROGRESS_LINE_SECONDS = 10.0
# `channelkit status`: a run's volume is usual within this factor of the median of up to
# SYNC_USUAL_RUNS earlier completed runs of the same mode (at least 3 needed).
SYNC_USUAL_RUNS = 10
SYNC_VOLUME_FACTOR = 2.0
STATUS_RUNS_SHOWN = 5  # the runs `channelkit status` lists
SYNC_STOP_GRACE_SECONDS = 2.0  # after Ctrl-C, how long walks get to notice before we leave
SYNC_HWM_MARGIN_SECONDS = 60.0  # clock slack between "after" and the walk's duration
# Incremental runs within which every post and all older history are re-read once; the
# last run of each such cycle also lists every post unfiltered (scheduled posts and drafts).
SYNC_CONVERGENCE_RUNS = 7
SYNC_ANALYTICS_END_SLACK_DAYS = 2  # days past "today" asked for, against clock skew
# The lake copy streams rows from DuckDB into delta-rs, which buffers a file's worth of
# rows before writing it: small batches and files keep a 1M-post copy within ~150 MB.
LAKE_BATCH_ROWS = 5_000
LAKE_TARGET_FILE_BYTES = 8 * 1024 * 1024
LAKE_DUCKDB_MEMORY_BYTES = 32 * 2**20  # DuckDB only streams rows out for the lake (+ keys)

# --- Job runs and the watcher (channelkit watch) -------------------------------------------
# Every job appends its runs' start and end to a file of its own beside the warehouse
# (warehouse.duckdb.runs.jsonl), never the DuckDB file that readers hold.
RUNS_SUFFIX = ".runs.jsonl"
# The watcher's heartbeat beside the warehouse: when it last ran and how often it runs.
WATCHER_HEARTBEAT_SUFFIX = ".watch.json"
WATCH_STATE_SUFFIX = ".watch-state.json"  # its incidents and alerts not yet sent
ENV_JOB = "CHANNELKIT_JOB"  # the name a run is recorded under (default: the command's)
ENV_PING_URL = "CHANNELKIT_PING_URL"  # a healthchecks.io-style ping URL, pinged per run
PING_TIMEOUT_S = 5.0  # a ping never holds a job longer than this
WATCH_EVERY = "5m"  # how often the watcher runs (its crontab line, its loop)
WATCH_GRACE = "15m"  # a job's run may start this late before it is late
WATCH_LONGEST = "1h"  # a job's longest normal run
# A run started up to this long before its scheduled instant still answers it (clock skew,
# a timer that fires a little early).
WATCH_EARLY_SECONDS = 60.0
# `channelkit status` and every job say so when the watcher's heartbeat is older than its
# period times this (a tick may be late by a little without being news).
WATCHER_STALE_FACTOR = 2

# --- Analysis, plots and reports ----------------------------------------------------------
# Every metric called without a period covers this range (attrs["default_period"]): 28
# days end with the last complete synced day, long enough for the reach curve's cohort
# (posts REACH_CURVE_DAYS old) and for the usual range on a few months of data.
METRIC_DEFAULT_PERIOD = "last 28 days"
KPI_DEFAULT_DAYS = 7  # kpis() given only start or only end: this many days from it
TOP_POSTS_N = 10
TOP_POSTS_MIN_VIEWS = 100  # for by="engagement_rate"; by="views" needs no threshold
SMALL_SAMPLE_POSTS = 10  # groups with fewer posts are flagged small_sample
KPI_SMALL_BASE_COUNT = 20  # a count whose previous value is below this is a small base
KPI_SMALL_BASE_AUDIENCE = 100  # ...and a rate whose previous denominator is below this
KPI_USUAL_PERIODS = 8  # usual range: mean -/+ 2 sd over this many previous periods...
KPI_USUAL_MIN_PERIODS = 4  # ...and missing when fewer of them have synced data
KPI_USUAL_SD = 2.0
# Like for like: a comparison period's readers are counted as they stood as long after its
# end as the current period's are now, while the current period ended fewer days ago than
# this; older periods have all their readers and compare lifetime with lifetime.
SAME_AGE_MAX_DAYS = 28
GRID_MAX_CELLS = 100_000  # rows a grid (periods x channels) may have before it is refused
REACH_CURVE_DAYS = 14
REACH_CURVE_MAX_DAYS = 366
REACH_GRID_CELLS = 4_000_000  # posts x days summed at once by reach_curve (32 MB of int64)
LOW_REACH_SHARE = 0.5  # low reach: read rate below this share of the channel's median
# A post younger than its channel's typical reach time is still collecting readers: read-rate
# rankings (low_reach, top_posts by read rate) leave it out and count it apart. The reach
# time is the first day of the channel's reach curve with this share of readers, measured
# on the posts published in this many days before the curve's cohort (posts
# REACH_CURVE_DAYS days old); SETTLE_DAYS for a channel without any such post.
REACH_TIME_SHARE = 0.9
REACH_TIME_WINDOW_DAYS = 28
SETTLE_DAYS = 7
# Fair rankings (analysis/fair.py, docs/metrics.md "Fair rankings"): every rate in a ranking
# has a FAIR_CONFIDENCE interval; items whose base (audience, opens) is below FAIR_MIN_BASE
# are too few to rank (a Wilson interval at 30 is still ±17 points wide at 50%); a prior
# fitted on rates that vary no more than chance weighs FAIR_MAX_STRENGTH trials.
FAIR_CONFIDENCE = 0.95
FAIR_MIN_BASE = 30
FAIR_MAX_STRENGTH = 1e6
# Best times (analysis/timing.py): posts judged on their readers in their first
# BEST_TIMES_AGE_DAYS UTC days; a weekday-hour with fewer than BEST_TIMES_MIN_POSTS such
# posts' worth of evidence is not tested; slots differ from the rest when their interval,
# widened for the slots tested by a permutation test (BEST_TIMES_PERMUTATIONS shuffles of
# the slots within each channel, seeded), excludes 1.
BEST_TIMES_AGE_DAYS = 7
BEST_TIMES_MIN_POSTS = 5
BEST_TIMES_PERMUTATIONS = 200
BEST_TIMES_SEED = 20261126
BEST_TIMES_GRID_CELLS = 4_000_000  # shuffles x posts judged at once (32 MB of int64)
# More posts than this: every tested slot's z is near normal, and Bonferroni's bound
# replaces the shuffles (200 x 1M labels take seconds).
BEST_TIMES_PERMUTE_UP_TO = 50_000
# Settled or provisional (issue 28): a KPI of readers is provisional while its period's
# youngest posts are younger than the day by which the workspace's posts reach this share
# of their readers (its reach curve over the same window as the reach time).
KPI_SETTLED_SHARE = 0.95
# Outlook (analysis/outlook.py, docs/metrics.md "Outlook"): a young post's final readers
# forecast from its readers so far (Szabo-Huberman: log(1 + readers at its channel's
# settled age) = log(1 + readers at age a) + the shift its channel's posts of the same
# weekday of publication, settled by then, had at age a). The shift and the
# OUTLOOK_LOW..OUTLOOK_HIGH interval come from each channel's OUTLOOK_MAX_POSTS most recent
# posts settled by then, published within OUTLOOK_HISTORY_DAYS. Posts younger than
# OUTLOOK_MIN_AGE_DAYS are too early to say (day 0's readers depend on the hour of
# publication, which daily rows cannot see). News: a post whose whole interval is under
# OUTLOOK_NEWS_SHARE of its channel's usual settled readers at its audience.
# Each channel aims at its own settled age: the first age by which its posts (summed) have
# OUTLOOK_SETTLE_SHARE of the readers they had at OUTLOOK_HORIZON_DAYS, from its
# OUTLOOK_MAX_POSTS latest posts at least that old (within OUTLOOK_HISTORY_DAYS); with fewer
# than OUTLOOK_MIN_POSTS of them, the same rule over every channel's (the workspace's).
# Intervals are Mondrian: per channel, age and weekday of publication, from at least
# OUTLOOK_MIN_CLASS_POSTS posts of that weekday (the fewest whose order statistics give an
# 80% interval); with fewer, the forecast abstains and says why.
OUTLOOK_LOW = 0.1
OUTLOOK_HIGH = 0.9
OUTLOOK_SETTLE_SHARE = 0.99
OUTLOOK_HORIZON_DAYS = 28
OUTLOOK_MIN_CLASS_POSTS = 9
OUTLOOK_MAX_POSTS = 200
OUTLOOK_HISTORY_DAYS = 182
# The first window (days) in which the outlook looks for each channel's latest settled posts
# (widened to where the sparsest channel's pace would reach OUTLOOK_MAX_POSTS, times
# OUTLOOK_SCAN_MARGIN, until each has them or it spans OUTLOOK_HISTORY_DAYS).
OUTLOOK_SCAN_DAYS = 7
OUTLOOK_SCAN_MARGIN = 1.5
OUTLOOK_MIN_POSTS = 20
OUTLOOK_MIN_AGE_DAYS = 1
OUTLOOK_NEWS_SHARE = 0.25
OUTLOOK_BACKTEST_AGES = (1, 2, 3)
OUTLOOK_SHOWN = 3  # posts named in the report's "heading below" sentence
PERIOD_FIRST_YEAR = 1970  # dates outside these years are typos, not periods
PERIOD_LAST_YEAR = 2200
DURATION_MAX_DAYS = 3_660  # a longer duration flag (--shift, --upcoming, max_age) is a typo
PLOT_TEMPLATE = "channelkit"
# The outlook chart: one row per post, this many px each, at most this many posts a page.
PLOT_OUTLOOK_ROW_PX = 26
PLOT_OUTLOOK_MAX_ROWS = 60
# Browsers kaleido may use for static images (the system's; never a downloaded one).
PLOT_BROWSER_CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")
PLOT_COLORS = ("#2563eb", "#f97316", "#16a34a", "#dc2626", "#9333ea", "#0891b2", "#ca8a04")
# The days whose posts are still gathering readers (docs/metrics.md, "Plots"): a band of
# this colour behind them, labelled in this one; their bars this opaque.
PLOT_GATHERING_FILL = "#ede9fe"
PLOT_GATHERING_TEXT = "#6d28d9"
PLOT_GATHERING_OPACITY = 0.55
PLOT_FONT = "Inter, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"
# Mimetype for JupyterLab and VS Code; "notebook" embeds plotly.js in the saved output, so
# exported HTML renders offline (the "_connected" renderers fetch it from a CDN).
PLOT_RENDERER = "plotly_mimetype+notebook"

# --- Reports (channelkit report) -----------------------------------------------------------
REPORT_PERIOD_DEFAULT = "7d"
REPORT_TEMPLATE_NAME = "report.html.j2"
REPORT_LOGGER_NAME = "channelkit.reports"
REPORT_UPCOMING_LIMIT = 10  # a phone and a printed page; the CSV has all
REPORT_GROUP_ROWS_LIMIT = 15  # tags shown in the table; the CSV has all
REPORT_BODY_EXCERPT_CHARS = 600
REPORT_DAILY_TREND_MAX_DAYS = 62
REPORT_AXIS_LABEL_CHARS = 28  # bar labels (post titles) beside the bars; full text in the table
REPORT_CHART_TOP_MARGIN = 16  # px above a chart whose title the page shows in HTML
REPORT_TREND_TICKS = 10  # at most this many dates on the trend's axis; fewer on a phone
REPORT_BODY_TOP_HEADING = 4  # a post's "# Title" is an h4 in a report: the page keeps its outline
REPORT_COMPARE_DEFAULT = "previous"
REPORT_FORMATS = ("html", "pdf", "png")
REPORT_PDF_PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}  # mm; print CSS fits both
REPORT_PDF_PAPER_DEFAULT = "a4"
REPORT_PDF_VIEWPORT_WIDTH = 720  # CSS px the charts are drawn at for paper (A4 minus margins)
REPORT_PNG_VIEWPORT_WIDTH = 1280
REPORT_RENDER_TIMEOUT_S = 120
# The email's chart images are drawn for a phone: at 390 px a chart is 332 px wide (the
# email's margins), so text of REPORT_EMAIL_CHART_FONT px on a chart REPORT_EMAIL_CHART_SIZE
# wide shows 15 * 332 / 400 = 12.5 px tall (at least 12 px: read at arm's length, not up
# close; 14 px on 440 showed 10.6); drawn at 1.5 times the pixels for sharp text. A
# narrower chart rather than larger type on the same one: its image stays as heavy as
# before, and a week's email keeps room for its interactive report, zipped.
REPORT_EMAIL_CHART_SIZE = (400, 360)  # CSS px of the static chart images in an email
REPORT_EMAIL_CHART_FONT = 15  # px: the smallest text on an email chart
REPORT_EMAIL_CHART_SCALE = 1.5
# the first charts of the page that carry something: a phone's few screens, and room within
# DELIVER_EMAIL_MAX_BYTES for the interactive report, zipped
REPORT_EMAIL_CHARTS = 4

# --- Delivery (channelkit deliver) ----------------------------------------------------------
DELIVER_SMTP_TIMEOUT_S = 30.0
DELIVER_WEBHOOK_TIMEOUT_S = 30.0
# default email subject: "All Hands · October 2026 engagement"; also {name} (the config's)
DELIVER_SUBJECT = "{channels} · {period} engagement"
DELIVER_TARGET_DEADLINE_S = 90.0  # a whole delivery to one target (timeouts above are per read)
DELIVER_EMAIL_MAX_BYTES = 1_000_000  # the whole email; the report is zipped or left out to fit
DELIVER_NOTEBOOK_EMAIL_MAX_BYTES = 3_000_000  # a notebook's email: its page is all it carries
# An interactive report too large for its email, of an entry without `out_dir`, is kept in
# this folder beside the warehouse (whose ledger records the delivery), and the email and the
# run's output say where
DELIVER_KEPT_FOLDER = "delivered-reports"
# `deliver`'s record of what it sent: a SQLite file beside the warehouse
# (`warehouse.duckdb.delivered.sqlite3`), never inside it, so readers holding the warehouse
# never stop a delivery from being recorded
DELIVER_RECORD_SUFFIX = ".delivered.sqlite3"
# `--unknown`: what to do with a target a killed run left "sending" (did it arrive?)
DELIVER_UNKNOWN_CHOICES = ("resend", "sent")
# `when`: "always" sends every period; "news" only when a number leaves its usual range or a
# post is below its channel at its age (`low_reach`)
DELIVER_WHEN = ("always", "news")
DELIVER_WHEN_DEFAULT = "always"
# News: the summary's headline numbers outside their usual range, or a post that reached
# less than this share of its channel's usual read rate at its age: a steady workspace has
# a few posts under half (`LOW_REACH_SHARE`) every week, and a weekly "news" of them is noise
DELIVER_NEWS_METRICS = ("read_rate", "readers")
DELIVER_NEWS_LOW_REACH_SHARE = 0.25
NOTEBOOK_EXTRA = "notebook"  # the pip extra that runs a notebook as the report
NOTEBOOK_KERNEL = "python3"  # ipykernel's, in the interpreter running channelkit
NOTEBOOK_TIMEOUT_S = 600  # a whole report notebook run, kernel start included (--timeout)
# What a report notebook's cells may output in all (text, tables, images, figures' data), in
# characters (bytes, for the ASCII of images and JSON): past it, no page. A page is mailed.
NOTEBOOK_OUTPUT_MAX_CHARS = 10_000_000
# The report kernel's plotly renderer: figures as their JSON only, drawn by the page's one
# plotly.js (ck.plots' own PLOT_RENDERER would embed plotly.js and fetch MathJax per figure).
NOTEBOOK_PLOTLY_RENDERER = "plotly_mimetype"
# A failing cell is named in one line, then the last frames of its traceback are printed (and
# mailed): where it failed, without a screenful of library internals
NOTEBOOK_TRACE_FRAMES = 3
# `pip install` names of modules a notebook imports that differ from the import name: a cell
# failing on `No module named 'sklearn'` is told `pip install scikit-learn`
NOTEBOOK_PIP_NAMES = {
    "sklearn": "scikit-learn",
    "PIL": "pillow",
    "yaml": "pyyaml",
    "cv2": "opencv-python",
    "bs4": "beautifulsoup4",
    "dateutil": "python-dateutil",
}
# The only environment a report kernel inherits: what Python, Jupyter, the locale and the
# browser that draws images need. Everything else (CHANNELKIT_API_KEY, CHANNELKIT_SMTP_URL, a
# webhook's url_env, AWS_* and any other credential) stays out: a cell printing os.environ
# must not put a secret on the page or into the email. The notebook gets the warehouse path,
# the period and the zone as its injected parameters instead.
NOTEBOOK_KERNEL_ENV = (
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP",
    "TMP", "VIRTUAL_ENV", "CONDA_PREFIX", "LD_LIBRARY_PATH", "SYSTEMROOT", "COMSPEC",
    "PATHEXT", "WINDIR", "APPDATA", "LOCALAPPDATA", "USERPROFILE", "PROGRAMDATA",
    "MPLBACKEND", "MPLCONFIGDIR", "BROWSER_PATH", "CHANNELKIT_TZ", "JUPYTER_PATH",
    "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_PLATFORM_DIRS",
    "IPYTHONDIR",
)  # fmt: skip
NOTEBOOK_KERNEL_ENV_PREFIXES = ("LC_", "PYTHON", "XDG_")  # not JUPYTER_: JUPYTER_TOKEN

# --- Publishing -----------------------------------------------------------------------------
# A folder of the team's layout files (*.toml, docs/publishing.md "Moving from another
# tool"): read beside the built-in layouts; unset, only the built-in ones are known.
ENV_LAYOUTS = "CHANNELKIT_LAYOUTS"
LAYOUT_FILE_SUFFIX = ".toml"
ENV_TZ = "CHANNELKIT_TZ"  # default time zone for naive times (ck.schedule, spreadsheets)
PUBLISH_LEAD_TIME_SECONDS = 5 * 60  # a scheduled time must be at least this far ahead
PUBLISH_MAX_AHEAD_YEARS = 10  # and at most this far: 9999-12-30 is a typo, not a plan
# Added to the service's clock (estimated from its Date headers) before the lead-time check.
PUBLISH_CLOCK_MARGIN_SECONDS = 30
IDEMPOTENCY_KEY_PREFIX = "ck-post-"
PUBLISH_SLOT_HORIZON_DAYS = 366  # --slots looks this far ahead for a free slot
PUBLISH_BEST_SLOTS = 6  # --slots best: at most this many reliably better (or usual) hours
PUBLISH_BEST_MIN_POSTS = 20  # fewer posts old enough to judge: the organisation's hours
PUBLISH_SUBMIT_WORKERS = 4  # creates in flight at once; the client paces them
# The sent-posts ledger (one SQLite file per machine): this variable names another file.
ENV_LEDGER = "CHANNELKIT_LEDGER"
LEDGER_FILE_NAME = "sent-posts.sqlite3"  # in the user's data folder (XDG_DATA_HOME on Linux)
LEDGER_BUSY_SECONDS = 30.0  # another process writing the ledger is waited for this long
LEDGER_COMMIT_EVERY = 100  # created posts recorded per transaction while sending
# The dry run warns about a post on the service with the same title or body this close.
PUBLISH_LIKELY_DUPLICATE_DAYS = 7
# A held post carries its scheduled time, the hold's time and who held it in one tag
# starting with this (channelkit hold), so every machine sees what is held.
PUBLISH_HOLD_TAG_PREFIX = "held:"
# The hold mark's check (base32 of SHA-256 of the post as the hold left it): 30 bits, enough
# to tell a copied, typed or stale mark from the hold's own, and short enough to leave 21
# characters of the 50 a tag has for the holder's name.
PUBLISH_HOLD_CHECK_CHARS = 6
# Every post channelkit creates carries one tag naming the row it came from (`publish.origin`):
# this prefix, then this many base32 characters of a SHA-256 (60 bits: no two rows of a
# workspace share one), 31 characters of the 50 a tag has.
PUBLISH_ORIGIN_TAG_PREFIX = "sent-by-channelkit:"
# Approval before publishing (`channelkit approve`): the team's policy file and each
# approver's own private key are named by these variables (or --policy / --key).
ENV_APPROVAL_POLICY = "CHANNELKIT_APPROVAL_POLICY"
ENV_APPROVAL_KEY = "CHANNELKIT_APPROVAL_KEY"
APPROVAL_KEY_FILE_NAME = "approval-key.pem"  # in the user's config folder by default
# A post waiting for approval is a draft carrying its intended time in one tag (`now`: at
# once when approved); an approval is the approver's Ed25519 signature (64 bytes, 86
# base64url characters) in APPROVAL_SIGNATURE_PARTS tags, as a tag holds 50 characters.
APPROVAL_WAIT_TAG_PREFIX = "awaiting-approval:"
APPROVAL_TAG_PREFIX = "approved:"
APPROVAL_REJECT_TAG_PREFIX = "rejected:"
# What an approval saw, two characters of digest per field: says what changed after it
# (a hint for the listing, never trusted: the signature is what counts).
APPROVAL_SEEN_TAG_PREFIX = "approval-saw:"
APPROVAL_SIGNATURE_PARTS = 4
APPROVAL_NAME_MAX_CHARS = 16  # what is left of a tag for the approver's name
APPROVALS_NEEDED = 1  # approvals a post needs unless the policy says more
APPROVAL_SELF_ALLOWED = False  # whether an author may approve their own post by default
# A post bound for an approval channel without a time is created this far ahead (the
# service publishes a post created without one at once) and moved to draft at once.
APPROVAL_PLACEHOLDER_DAYS = 30
PUBLISH_ORIGIN_CHARS = 12
# A body this long (spacing normalised) matching a post nearby refuses the row by itself.
PUBLISH_DUPLICATE_BODY_MIN_CHARS = 40
# A scheduled or published post this close to a row's time, in its channel, with its title
# or its body (of any length), is the same post: the row is refused (--allow-duplicates sends
# it). A colleague's copy of the sheet keeps the times; a retitled short post keeps its body.
PUBLISH_DUPLICATE_NEAR_MINUTES = 10
# A create answered with a post made this much before the request left was a replay
# (the service's clock is estimated from whole-second Date headers: never closer).
PUBLISH_REPLAY_MARGIN_SECONDS = 2
WORD_DIFF_CONTEXT_WORDS = 4  # unchanged words shown on each side of a changed text's change
WORD_DIFF_RUN_WORDS = 40  # an added or removed run longer than this is cut, with its length
# Excel serials accepted as times: 1 Jan 2000 .. 31 Dec 2099 (anything else is a typo).
EXCEL_SERIAL_MIN = 36_526
EXCEL_SERIAL_MAX = 73_050
SPREADSHEET_MAX_BYTES = 10 * 1024 * 1024
SPREADSHEET_MAX_UNZIPPED_BYTES = 50 * 1024 * 1024  # xlsx is a zip: guard against bombs
SPREADSHEET_MAX_ROWS = 20_000
# The day/month order of a column of A/B/YYYY dates (publish/layouts/stamps.py, docs/metrics.md
# "Day/month order"): the rows that are dates in one order only settle it for the rows that
# are dates both ways when they are at least DATE_ORDER_MIN_ROWS and at least one in
# DATE_ORDER_ONE_IN of the rows whose reading depends on the order (whole numbers: no float
# rounding at the border); fewer may be typos, and one row alone never is.
DATE_ORDER_MIN_ROWS = 3
DATE_ORDER_ONE_IN = 5
SPREADSHEET_SHEET_NAME = "posts"  # preferred sheet when --sheet is not given
SPREADSHEET_NOTES_SHEET_NAME = "notes"
SPREADSHEET_ERROR_COLUMN = "error"  # added to failed-rows files; ignored when read back
SPREADSHEET_RESULT_COLUMN = "result"  # added to calendar results files; ignored when read
SPREADSHEET_IGNORED_COLUMNS = (SPREADSHEET_ERROR_COLUMN, SPREADSHEET_RESULT_COLUMN, "notes")

# --- Publishing widgets (ck.widgets) ---------------------------------------------------------
WIDGET_TABLE_MAX_ROWS = 200  # rows shown in a widget table; files always hold every row
WIDGET_RESULTS_FILENAME = "channelkit-results.xlsx"
WIDGET_FAILED_ROWS_FILENAME = "channelkit-failed-rows.xlsx"
WIDGET_TEMPLATE_FILENAME = "posts-template.xlsx"
WIDGET_UPLOAD_ACCEPT = ".xlsx,.csv"

# --- Demo -----------------------------------------------------------------------------------
DEMO_DIR = "channelkit-demo"
DEMO_KEY_NAME = "admin"  # the demo key that sees the most (all scopes, enterprise plan)
DEMO_REPORT_PERIOD = "28d"
DEMO_SERVICE_DB = "service.sqlite"
DEMO_REPORT = "report.html"
DEMO_PARQUET_DIR = "parquet"

# --- Command line: messages, output, interrupts (the newcomer's first hour) -----------------
# A run's first request still unanswered after this long (a port that accepts and never
# answers) is said at once, not after the read timeout.
CLI_NO_ANSWER_NOTICE_SECONDS = 1.0
SUGGEST_MAX_NAMES = 5  # names listed in "did you mean ... choices: ..." messages
DEFAULT_TZ = "UTC"  # the timezone when neither --tz/tz= nor CHANNELKIT_TZ names one
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report Ctrl-C
EXIT_TERMINATED = 143  # 128 + SIGTERM
INTERRUPTED_MESSAGE = "interrupted; what was committed is kept; run again to resume"
# A template's example rows carry this in their title: `schedule --submit` refuses them.
TEMPLATE_EXAMPLE_MARKER = "[EXAMPLE]"
# What a numeric or date flag takes, checked at the edge (`_cli.Number`, `_cli.Day`), so that
# inf, nan, 1e20 or the year 9999 is one line naming the flag, not an overflow deep inside:
CLI_YEARS = (1970, 2999)  # a date's year: the service's times are Unix times
CLI_SECONDS_MAX = 86_400.0  # a timeout: a day (a socket refuses 1e20 s)
CLI_DAYS_MAX = 36_500  # a number of days (--lookback-days): a century
CLI_COUNT_MAX = 1_000_000_000  # a count without a limit of its own (runs, rows, pages)

# --- Notebook displays and the Explorer (channelkit.display, ck.widgets.Explorer) -----------
DISPLAY_MAX_ROWS = 60  # rows of a metric frame shown in a notebook; the frame keeps them all
# A warehouse whose last completed sync is older than this shows as stale on its card.
DISPLAY_STALE_AFTER_HOURS = 26
EXPLORER_FILENAME = "channelkit-explorer.xlsx"  # what the Explorer's export button writes
