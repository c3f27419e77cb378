"""Numbered schema migrations. Append new ones; never edit one that has shipped."""

MIGRATIONS: list[tuple[int, str]] = [
    (1, """
    CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        status TEXT NOT NULL,
        source TEXT NOT NULL,
        format TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        config_json TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        decider TEXT NOT NULL,
        windows_total INTEGER NOT NULL DEFAULT 0,
        windows_done INTEGER NOT NULL DEFAULT 0,
        seconds REAL NOT NULL DEFAULT 0,
        error TEXT
    );
    CREATE TABLE messages (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        idx INTEGER NOT NULL,
        speaker TEXT NOT NULL,
        role TEXT NOT NULL,
        text TEXT NOT NULL,
        timestamp TEXT,
        session INTEGER NOT NULL,
        source_ref TEXT,
        PRIMARY KEY (run_id, id)
    );
    CREATE TABLE episodes (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        window INTEGER NOT NULL,
        cue TEXT NOT NULL,
        narrative TEXT NOT NULL,
        message_ids TEXT NOT NULL,
        status TEXT NOT NULL,
        superseded_by TEXT,
        supersedes TEXT NOT NULL DEFAULT '[]',
        start TEXT,
        "end" TEXT,
        embedding BLOB,
        PRIMARY KEY (run_id, id)
    );
    CREATE TABLE memories (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        window INTEGER NOT NULL,
        text TEXT NOT NULL,
        status TEXT NOT NULL,
        superseded_by TEXT,
        supersedes TEXT NOT NULL DEFAULT '[]',
        origin TEXT NOT NULL,
        source_episode_ids TEXT NOT NULL,
        source_message_ids TEXT NOT NULL,
        embedding BLOB,
        PRIMARY KEY (run_id, id)
    );
    CREATE TABLE events (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        window INTEGER NOT NULL,
        stage TEXT NOT NULL,
        payload TEXT NOT NULL,
        message_ids TEXT NOT NULL,
        episode_ids TEXT NOT NULL,
        memory_ids TEXT NOT NULL,
        call_ids TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    );
    CREATE INDEX events_by_stage ON events(run_id, stage);
    CREATE TABLE llm_calls (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        window INTEGER NOT NULL,
        prompt_name TEXT NOT NULL,
        record TEXT NOT NULL,
        PRIMARY KEY (run_id, id)
    );
    CREATE TABLE llm_cache (
        key TEXT PRIMARY KEY,
        entry TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE vector_cache (
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (namespace, key)
    );
    """),
    # 2: evaluation runs and their per-question results. Eval runs stand apart from pipeline runs
    # (one evaluation spans several conversations, so several runs): the runs it used are listed
    # in memory_runs and deleting a run leaves its evaluations readable.
    (2, """
    CREATE TABLE eval_runs (
        id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        benchmark TEXT NOT NULL,
        variant TEXT NOT NULL,
        source TEXT NOT NULL,
        decider TEXT NOT NULL,
        judge TEXT,
        config_json TEXT NOT NULL,
        options_json TEXT NOT NULL,
        memory_runs TEXT NOT NULL,
        summary_json TEXT NOT NULL,
        seconds REAL NOT NULL DEFAULT 0
    );
    CREATE INDEX eval_runs_by_time ON eval_runs(created_at);
    CREATE TABLE eval_questions (
        eval_id TEXT NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        item_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        category TEXT NOT NULL,
        result_json TEXT NOT NULL,
        context TEXT,
        PRIMARY KEY (eval_id, seq)
    );
    """),
    # 3: what a run was made from and who is running it. content_hash tells an unfinished run of
    # a file apart from a later, edited file of the same name; owner (host, pid and process start)
    # lets a reader see that a run marked running lost its process.
    (3, """
    ALTER TABLE runs ADD COLUMN content_hash TEXT;
    ALTER TABLE runs ADD COLUMN owner TEXT
    """),
    # 4: LLM calls made outside a run's windows: Ask, an evaluation's answers and its judge.
    # They name what they served (run, eval and question) and are never deleted with a run, so
    # an evaluation's cost stays readable.
    (4, """
    CREATE TABLE call_log (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        run_id TEXT,
        eval_id TEXT,
        item_id TEXT,
        prompt_name TEXT NOT NULL,
        created_at TEXT NOT NULL,
        record TEXT NOT NULL
    );
    CREATE INDEX call_log_by_run ON call_log(run_id);
    CREATE INDEX call_log_by_eval ON call_log(eval_id)
    """),
    # 5: the questions a conversation came with (LoCoMo's qa list), so a sweep point of any run
    # reports evidence recall@k without the original file at hand. NULL: none, or stored before.
    (5, """
    ALTER TABLE runs ADD COLUMN questions_json TEXT
    """),
    # 6: messages added to a run after it was created (append, the Python API). `appends`
    # records where each addition started, so the pages can show it; `window_cuts` holds the
    # message counts at which a window was closed before it was full (a flush, or the end of
    # a `run`), so that messages added later are windowed after the cut, never into a window
    # already processed.
    (6, """
    CREATE TABLE appends (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        first_idx INTEGER NOT NULL,
        count INTEGER NOT NULL,
        first_window INTEGER NOT NULL,
        source TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    );
    CREATE TABLE window_cuts (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        at INTEGER NOT NULL,
        PRIMARY KEY (run_id, at)
    )
    """),
    # 7: the Python API as a shared library. A caller's own message ids (`message_keys`), so
    # that an add retried with the same id stores nothing twice; the scope a run belongs to
    # (`run_scopes`: one run per user and agent); and messages by position, so that an add
    # reads the run's last message instead of all of them.
    (7, """
    CREATE INDEX messages_by_idx ON messages(run_id, idx);
    CREATE TABLE message_keys (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        message_id TEXT NOT NULL,
        PRIMARY KEY (run_id, key)
    );
    CREATE TABLE run_scopes (
        run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        UNIQUE (user_id, agent_id)
    )
    """),
    # 8: a reader's marks on a run's decisions (an event, by its seq): right or wrong, with
    # the decision the reader says is right, so users build check sets of their own
    (8, """
    CREATE TABLE marks (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        stage TEXT NOT NULL,
        verdict TEXT NOT NULL CHECK (verdict IN ('right', 'wrong')),
        correction TEXT NOT NULL DEFAULT '',
        marked_at TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    )
    """),
    # 9: named sweeps over several conversations. A run is a point of a sweep through
    # sweep_runs, not a column of runs: a point already stored is reused by a later sweep, so
    # one run may belong to several; deleting a run drops it from its sweeps, and a sweep
    # outlives its runs until it is deleted itself.
    (9, """
    CREATE TABLE sweeps (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        created_at TEXT NOT NULL,
        grid_json TEXT NOT NULL,
        conversations_json TEXT NOT NULL
    );
    CREATE TABLE sweep_runs (
        sweep_id TEXT NOT NULL REFERENCES sweeps(id) ON DELETE CASCADE,
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        point TEXT NOT NULL,
        conversation TEXT NOT NULL,
        PRIMARY KEY (sweep_id, run_id)
    );
    CREATE INDEX sweep_runs_by_run ON sweep_runs(run_id)
    """),
]
