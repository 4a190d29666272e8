// DO NOT EDIT: generated from sidecar/schemas/site-config.schema.json by
// `node scripts/site-config-doc.js generate`; test/unit/site-config-doc.test.ts checks it.

/** One node of the JSON Schema subset the site configuration uses. */
export interface SiteSchemaNode {
  type?: string;
  enum?: readonly string[];
  properties?: Readonly<Record<string, SiteSchemaNode>>;
  additionalProperties?: boolean;
  items?: SiteSchemaNode;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  $ref?: string;
  description?: string;
}

export interface SiteSchema extends SiteSchemaNode {
  $defs: Readonly<Record<string, SiteSchemaNode>>;
}

export const SITE_CONFIG_SCHEMA: SiteSchema = {
  "description": "The site configuration file an operator writes once (project-startup.json in a Jupyter config directory, or the path in PROJECT_STARTUP_CONFIG or --config): the names of the site's model sources, its policy, storage, endpoints, secrets directory, limits and session times. Every key is optional; a PROJECT_STARTUP_* variable overrides the key it names, a flag overrides both. It never holds a secret: only the path of a directory or file that does.",
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "$schema": {
      "type": "string",
      "description": "Ignored: lets an editor find this schema."
    },
    "platform": {
      "enum": [
        "generic",
        "hosted-notebook",
        "cluster"
      ],
      "description": "The platform, instead of selecting it from the environment's evidence. Variable: PROJECT_STARTUP_PLATFORM."
    },
    "modelSources": {
      "type": "object",
      "additionalProperties": false,
      "description": "What a person reads about each model source this site offers. Only sources of the selected platform may be named (the cluster platform has service-managed and institution-ai-gateway only). Nothing here can change a source's approval modes (a source reached with a secret always has every action reviewed) or the model credential boundary.",
      "properties": {
        "service-managed": {
          "$ref": "#/$defs/modelSource"
        },
        "institution-ai-gateway": {
          "$ref": "#/$defs/modelSourceWithAddress"
        },
        "vendor-consumer-sign-in": {
          "$ref": "#/$defs/modelSource"
        },
        "vendor-api-a": {
          "$ref": "#/$defs/modelSource"
        },
        "vendor-api-b": {
          "$ref": "#/$defs/modelSource"
        },
        "compatible-service": {
          "$ref": "#/$defs/modelSourceWithAddress"
        }
      }
    },
    "policy": {
      "type": "object",
      "additionalProperties": false,
      "description": "The platform policy.",
      "properties": {
        "lowRiskAutomation": {
          "enum": [
            "permitted",
            "denied"
          ],
          "description": "Whether credential-free service-managed inference may use Low-Risk Automation (default: the platform's). Secret-backed sources always review every action. Variable: PROJECT_STARTUP_LOW_RISK_AUTOMATION."
        }
      }
    },
    "storage": {
      "type": "object",
      "additionalProperties": false,
      "description": "Durable project storage.",
      "properties": {
        "approvedRoots": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/absolutePath"
          },
          "description": "The approved project storage roots (the cluster platform requires the project inside one). Variable: PROJECT_STARTUP_APPROVED_STORAGE (the same paths separated by \":\")."
        }
      }
    },
    "endpoints": {
      "type": "object",
      "additionalProperties": false,
      "description": "Where the service probes the site's runtimes and identity endpoint.",
      "properties": {
        "localRuntimeUrl": {
          "$ref": "#/$defs/url",
          "description": "The local lightweight runtime's probe URL (default http://127.0.0.1:11434/api/version). Variable: PROJECT_STARTUP_LOCAL_RUNTIME_URL."
        },
        "servingRuntimeUrl": {
          "$ref": "#/$defs/url",
          "description": "The high-throughput serving runtime's probe URL (default http://127.0.0.1:8000/v1/models). Variable: PROJECT_STARTUP_SERVING_RUNTIME_URL."
        },
        "managedIdentityUrl": {
          "$ref": "#/$defs/url",
          "description": "The managed identity endpoint (default: none). Variable: PROJECT_STARTUP_MANAGED_IDENTITY_URL."
        }
      }
    },
    "secrets": {
      "type": "object",
      "additionalProperties": false,
      "description": "Where secrets are: paths only, never a secret itself.",
      "properties": {
        "directory": {
          "$ref": "#/$defs/absolutePath",
          "description": "The directory of mounted provider credential files (the mounted-file backend). Variable: PROJECT_STARTUP_SECRETS_DIR."
        },
        "trustedProxySecretFile": {
          "$ref": "#/$defs/absolutePath",
          "description": "The file holding the shared secret of the trusted-proxy ingress. Variable: PROJECT_STARTUP_TRUSTED_PROXY_SECRET_FILE."
        }
      }
    },
    "limits": {
      "type": "object",
      "additionalProperties": false,
      "description": "The service's bounds.",
      "properties": {
        "initializeRateLimit": {
          "$ref": "#/$defs/rateLimit",
          "description": "Initialize requests per client, as count/seconds (default 30/60). Variable: PROJECT_STARTUP_INITIALIZE_RATE_LIMIT."
        },
        "allocationRateLimit": {
          "$ref": "#/$defs/rateLimit",
          "description": "New allocation job ids per client, as count/seconds (default 6/60); each costs one scheduler query. Variable: PROJECT_STARTUP_ALLOCATION_RATE_LIMIT."
        },
        "maxConnections": {
          "type": "integer",
          "minimum": 1,
          "maximum": 65536,
          "description": "Connections kept open at once (default: derived from the descriptor limit). Variable: PROJECT_STARTUP_MAX_CONNECTIONS."
        },
        "requestTimeoutMs": {
          "type": "integer",
          "minimum": 1000,
          "maximum": 300000,
          "description": "Milliseconds for a request's headers and body to arrive, else 408 (default 15000). Variable: PROJECT_STARTUP_REQUEST_TIMEOUT_MS."
        },
        "probeTimeoutMs": {
          "type": "integer",
          "minimum": 50,
          "maximum": 30000,
          "description": "Milliseconds each probe may take (default 1000). Variable: PROJECT_STARTUP_PROBE_TIMEOUT_MS."
        }
      }
    },
    "sessions": {
      "type": "object",
      "additionalProperties": false,
      "description": "Browser sessions of the direct-loopback ingress.",
      "properties": {
        "idleSeconds": {
          "type": "integer",
          "minimum": 1,
          "maximum": 604800,
          "description": "Seconds a session lives after its last use (default 7200). Variable: PROJECT_STARTUP_SESSION_IDLE_SECONDS."
        },
        "maxSeconds": {
          "type": "integer",
          "minimum": 1,
          "maximum": 604800,
          "description": "Seconds a session lives at most (default 43200). Variable: PROJECT_STARTUP_SESSION_MAX_SECONDS."
        }
      }
    }
  },
  "$defs": {
    "modelSource": {
      "type": "object",
      "additionalProperties": false,
      "description": "A model source as this site offers it.",
      "properties": {
        "label": {
          "$ref": "#/$defs/label"
        },
        "arranged": {
          "type": "boolean",
          "description": "Whether this site has arranged the source (an agreement, an account, a gateway). Once any source is marked true, every source not marked true is not arranged."
        }
      }
    },
    "modelSourceWithAddress": {
      "type": "object",
      "additionalProperties": false,
      "description": "A model source reached at an address of the site's.",
      "properties": {
        "label": {
          "$ref": "#/$defs/label"
        },
        "arranged": {
          "type": "boolean",
          "description": "Whether this site has arranged the source (an agreement, an account, a gateway). Once any source is marked true, every source not marked true is not arranged."
        },
        "address": {
          "$ref": "#/$defs/httpsUrl"
        }
      }
    },
    "label": {
      "type": "string",
      "minLength": 1,
      "maxLength": 80,
      "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069]*$",
      "description": "The name a person reads: 1 to 80 characters, on one line: no control characters and none of the invisible characters that reorder or break text (bidirectional marks and overrides, line and paragraph separators)."
    },
    "absolutePath": {
      "type": "string",
      "minLength": 1,
      "maxLength": 4096,
      "pattern": "^/[^:\\u0000-\\u001f]*$",
      "description": "An absolute path (starting with /, without \":\" or control characters)."
    },
    "url": {
      "type": "string",
      "maxLength": 2048,
      "pattern": "^https?://[^/?#@\\s\\u0000-\\u001f\\u007f-\\u009f\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069]+([/?#][^\\s\\u0000-\\u001f\\u007f-\\u009f\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069]*)?$",
      "description": "An http:// or https:// URL without credentials (no user:password@) or control characters."
    },
    "httpsUrl": {
      "type": "string",
      "maxLength": 2048,
      "pattern": "^https://[^/?#@\\s\\u0000-\\u001f\\u007f-\\u009f\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069]+(/[^?#\\s\\u0000-\\u001f\\u007f-\\u009f\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069]*)?$",
      "description": "An https:// address: scheme, host, port and path only (no user:password@, no ?query, no #fragment, no control characters)."
    },
    "rateLimit": {
      "type": "string",
      "pattern": "^[0-9]+/[0-9]+$",
      "description": "count/seconds: 1 to 100000 requests per 1 to 86400 seconds, as 30/60."
    }
  }
};
