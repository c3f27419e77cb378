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
]
