-- One database per service (DESIGN §2: each service owns its database).
CREATE DATABASE IF NOT EXISTS runbook_identity CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE DATABASE IF NOT EXISTS runbook_secrets CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE DATABASE IF NOT EXISTS runbook_catalog CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
