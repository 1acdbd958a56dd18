/**
 * Corpora for the secret scanner: fake credentials of many providers written into the kinds of
 * sentences agents commit, and look-alikes that must pass (ids, hashes, versions, placeholders).
 *
 * Every fake credential is assembled at run time from a seeded generator, so no secret-shaped
 * literal sits in the repository (push protection and repository scanners stay quiet) and every
 * run sees the same corpus. A value's shape follows the provider's documented format; the
 * sentence around it comes from a fixed rotation of templates, not from what the scanner knows.
 */

/** A deterministic stream of characters (mulberry32). */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
  return {
    pick,
    hex: (n: number) => pick('0123456789abcdef', n),
    HEX: (n: number) => pick('0123456789ABCDEF', n),
    digits: (n: number) => pick('0123456789', n),
    lower: (n: number) => pick('abcdefghijklmnopqrstuvwxyz', n),
    letters: (n: number) => pick('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', n),
    alnum: (n: number) => pick('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', n),
    lowerAlnum: (n: number) => pick('abcdefghijklmnopqrstuvwxyz0123456789', n),
    upperAlnum: (n: number) => pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', n),
    b32: (n: number) => pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', n),
    b64: (n: number) => pick('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/', n),
    b64url: (n: number) => pick('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_', n),
    uuid: () => {
      const h = pick('0123456789abcdef', 32);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
    },
  };
}

type Gen = ReturnType<typeof generator>;

/** A fake credential in a sentence; `provider` is who issues it. */
export interface SecretSample {
  provider: string;
  kind: string;
  text: string;
}

/** Text that contains no secret but looks like it might. */
export interface LookAlike {
  kind: string;
  text: string;
}

interface Credential {
  provider: string;
  kind: string;
  /** How a person names it in prose: "the {noun} for staging is ...". */
  noun: string;
  /** The environment variable it usually lives in. */
  env: string;
  /** Recognisable without a name next to it (a vendor prefix or a fixed shape). */
  distinctive: boolean;
  value: (g: Gen) => string;
}

const base64 = (s: string) => Buffer.from(s).toString('base64');
const base64url = (s: string) => Buffer.from(s).toString('base64url');
const camel = (env: string) => env.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

// Prefixes are split from their bodies, and PEM armour from its label, so that no line of this file
// reads as a credential.
const CREDENTIALS: Credential[] = [
  { provider: 'AWS', kind: 'access key id', noun: 'AWS access key id', env: 'AWS_ACCESS_KEY_ID', distinctive: true, value: (g) => `AKIA${g.b32(16)}` },
  { provider: 'AWS', kind: 'temporary access key id', noun: 'AWS session key id', env: 'AWS_ACCESS_KEY_ID', distinctive: true, value: (g) => `ASIA${g.b32(16)}` },
  { provider: 'AWS', kind: 'secret access key', noun: 'AWS secret access key', env: 'AWS_SECRET_ACCESS_KEY', distinctive: false, value: (g) => g.b64(40) },
  { provider: 'GitHub', kind: 'classic PAT', noun: 'GitHub token', env: 'GITHUB_TOKEN', distinctive: true, value: (g) => `ghp_${g.alnum(36)}` },
  { provider: 'GitHub', kind: 'fine-grained PAT', noun: 'GitHub fine-grained token', env: 'GH_TOKEN', distinctive: true, value: (g) => `github_pat_${g.alnum(22)}_${g.alnum(59)}` },
  { provider: 'GitHub', kind: 'OAuth token', noun: 'GitHub OAuth token', env: 'GITHUB_OAUTH_TOKEN', distinctive: true, value: (g) => `gho_${g.alnum(36)}` },
  { provider: 'GitHub', kind: 'app installation token', noun: 'GitHub app token', env: 'GITHUB_APP_TOKEN', distinctive: true, value: (g) => `ghs_${g.alnum(36)}` },
  { provider: 'GitLab', kind: 'PAT', noun: 'GitLab token', env: 'GITLAB_TOKEN', distinctive: true, value: (g) => `glpat-${g.b64url(20)}` },
  { provider: 'GitLab', kind: 'runner token', noun: 'GitLab runner token', env: 'RUNNER_TOKEN', distinctive: true, value: (g) => `glrt-${g.b64url(20)}` },
  { provider: 'Slack', kind: 'bot token', noun: 'Slack bot token', env: 'SLACK_BOT_TOKEN', distinctive: true, value: (g) => `xoxb-${g.digits(12)}-${g.digits(13)}-${g.alnum(24)}` },
  { provider: 'Slack', kind: 'user token', noun: 'Slack user token', env: 'SLACK_USER_TOKEN', distinctive: true, value: (g) => `xoxp-${g.digits(12)}-${g.digits(12)}-${g.digits(13)}-${g.hex(32)}` },
  { provider: 'Slack', kind: 'app token', noun: 'Slack app-level token', env: 'SLACK_APP_TOKEN', distinctive: true, value: (g) => `xapp-1-A${g.upperAlnum(10)}-${g.digits(13)}-${g.hex(64)}` },
  { provider: 'Stripe', kind: 'secret key', noun: 'Stripe secret key', env: 'STRIPE_SECRET_KEY', distinctive: true, value: (g) => `sk_live_${g.alnum(99)}` },
  { provider: 'Stripe', kind: 'restricted key', noun: 'Stripe restricted key', env: 'STRIPE_API_KEY', distinctive: true, value: (g) => `rk_live_${g.alnum(99)}` },
  { provider: 'Stripe', kind: 'webhook signing secret', noun: 'Stripe webhook secret', env: 'STRIPE_WEBHOOK_SECRET', distinctive: true, value: (g) => `whsec_${g.alnum(32)}` },
  { provider: 'OpenAI', kind: 'project key', noun: 'OpenAI API key', env: 'OPENAI_API_KEY', distinctive: true, value: (g) => `sk-proj-${g.b64url(74)}T3BlbkFJ${g.b64url(74)}` },
  { provider: 'Anthropic', kind: 'API key', noun: 'Anthropic API key', env: 'ANTHROPIC_API_KEY', distinctive: true, value: (g) => `sk-ant-api03-${g.b64url(93)}AA` },
  { provider: 'Google Cloud', kind: 'API key', noun: 'Google Maps API key', env: 'GOOGLE_MAPS_API_KEY', distinctive: true, value: (g) => `AIza${g.b64url(35)}` },
  { provider: 'Google Cloud', kind: 'OAuth client secret', noun: 'Google OAuth client secret', env: 'GOOGLE_CLIENT_SECRET', distinctive: true, value: (g) => `GOCSPX-${g.b64url(28)}` },
  { provider: 'Twilio', kind: 'API key', noun: 'Twilio API key', env: 'TWILIO_API_KEY', distinctive: true, value: (g) => `SK${g.hex(32)}` },
  { provider: 'Twilio', kind: 'auth token', noun: 'Twilio auth token', env: 'TWILIO_AUTH_TOKEN', distinctive: false, value: (g) => g.hex(32) },
  { provider: 'SendGrid', kind: 'API key', noun: 'SendGrid API key', env: 'SENDGRID_API_KEY', distinctive: true, value: (g) => `SG.${g.b64url(22)}.${g.b64url(43)}` },
  { provider: 'Mailgun', kind: 'private API key', noun: 'Mailgun API key', env: 'MAILGUN_API_KEY', distinctive: true, value: (g) => `key-${g.hex(32)}` },
  { provider: 'Mailchimp', kind: 'API key', noun: 'Mailchimp API key', env: 'MAILCHIMP_API_KEY', distinctive: true, value: (g) => `${g.hex(32)}-us${g.digits(2)}` },
  { provider: 'npm', kind: 'access token', noun: 'npm publish token', env: 'NPM_TOKEN', distinctive: true, value: (g) => `npm_${g.alnum(36)}` },
  { provider: 'PyPI', kind: 'upload token', noun: 'PyPI upload token', env: 'TWINE_PASSWORD', distinctive: true, value: (g) => `pypi-AgEIcHlwaS5vcmc${g.b64url(150)}` },
  { provider: 'Hugging Face', kind: 'access token', noun: 'Hugging Face token', env: 'HF_TOKEN', distinctive: true, value: (g) => `hf_${g.letters(34)}` },
  { provider: 'DigitalOcean', kind: 'PAT', noun: 'DigitalOcean token', env: 'DIGITALOCEAN_TOKEN', distinctive: true, value: (g) => `dop_v1_${g.hex(64)}` },
  { provider: 'Linear', kind: 'API key', noun: 'Linear API key', env: 'LINEAR_API_KEY', distinctive: true, value: (g) => `lin_api_${g.alnum(40)}` },
  { provider: 'Doppler', kind: 'service token', noun: 'Doppler service token', env: 'DOPPLER_TOKEN', distinctive: true, value: (g) => `dp.st.prd.${g.alnum(43)}` },
  { provider: 'HashiCorp Vault', kind: 'service token', noun: 'Vault token', env: 'VAULT_TOKEN', distinctive: true, value: (g) => `hvs.${g.alnum(24)}` },
  { provider: 'HashiCorp Vault', kind: 'long service token', noun: 'Vault token', env: 'VAULT_TOKEN', distinctive: true, value: (g) => `hvs.CAESI${g.b64url(90)}` },
  { provider: 'Terraform Cloud', kind: 'API token', noun: 'Terraform Cloud token', env: 'TF_TOKEN_app_terraform_io', distinctive: true, value: (g) => `${g.alnum(14)}.atlasv1.${g.alnum(67)}` },
  { provider: 'Shopify', kind: 'admin API token', noun: 'Shopify admin token', env: 'SHOPIFY_ACCESS_TOKEN', distinctive: true, value: (g) => `shpat_${g.hex(32)}` },
  { provider: 'Shopify', kind: 'shared secret', noun: 'Shopify app secret', env: 'SHOPIFY_API_SECRET', distinctive: true, value: (g) => `shpss_${g.hex(32)}` },
  { provider: 'Azure', kind: 'AD client secret', noun: 'Azure AD client secret', env: 'AZURE_CLIENT_SECRET', distinctive: true, value: (g) => `${g.alnum(3)}8Q~${g.alnum(34)}` },
  { provider: 'Telegram', kind: 'bot token', noun: 'Telegram bot token', env: 'TELEGRAM_BOT_TOKEN', distinctive: true, value: (g) => `${g.digits(10)}:AA${g.b64url(33)}` },
  { provider: 'Discord', kind: 'bot token', noun: 'Discord bot token', env: 'DISCORD_TOKEN', distinctive: true, value: (g) => `${base64(`1${g.digits(18)}`).replace(/=+$/, '')}.${g.b64url(6)}.${g.b64url(38)}` },
  { provider: 'Heroku', kind: 'API key', noun: 'Heroku API key', env: 'HEROKU_API_KEY', distinctive: false, value: (g) => g.uuid() },
  { provider: 'Heroku', kind: 'platform token', noun: 'Heroku platform token', env: 'HEROKU_API_KEY', distinctive: true, value: (g) => `HRKU-AA${g.b64url(58)}` },
  { provider: 'Datadog', kind: 'API key', noun: 'Datadog API key', env: 'DD_API_KEY', distinctive: false, value: (g) => g.hex(32) },
  { provider: 'Datadog', kind: 'application key', noun: 'Datadog app key', env: 'DD_APP_KEY', distinctive: false, value: (g) => g.hex(40) },
  { provider: 'New Relic', kind: 'user API key', noun: 'New Relic user key', env: 'NEW_RELIC_API_KEY', distinctive: true, value: (g) => `NRAK-${g.upperAlnum(27)}` },
  { provider: 'Sentry', kind: 'user auth token', noun: 'Sentry auth token', env: 'SENTRY_AUTH_TOKEN', distinctive: true, value: (g) => `sntryu_${g.hex(64)}` },
  { provider: 'Postman', kind: 'API key', noun: 'Postman API key', env: 'POSTMAN_API_KEY', distinctive: true, value: (g) => `PMAK-${g.hex(24)}-${g.hex(34)}` },
  { provider: 'Grafana', kind: 'service account token', noun: 'Grafana service account token', env: 'GRAFANA_TOKEN', distinctive: true, value: (g) => `glsa_${g.alnum(32)}_${g.hex(8)}` },
  { provider: 'Atlassian', kind: 'API token', noun: 'Jira API token', env: 'JIRA_API_TOKEN', distinctive: true, value: (g) => `ATATT3${g.b64url(177)}=${g.HEX(8)}` },
  { provider: 'Notion', kind: 'integration token', noun: 'Notion integration token', env: 'NOTION_TOKEN', distinctive: true, value: (g) => `ntn_${g.digits(11)}${g.alnum(35)}` },
  { provider: 'Airtable', kind: 'PAT', noun: 'Airtable token', env: 'AIRTABLE_TOKEN', distinctive: true, value: (g) => `pat${g.alnum(14)}.${g.hex(64)}` },
  { provider: 'Cloudflare', kind: 'API token', noun: 'Cloudflare API token', env: 'CLOUDFLARE_API_TOKEN', distinctive: false, value: (g) => g.b64url(40) },
  { provider: 'Databricks', kind: 'PAT', noun: 'Databricks token', env: 'DATABRICKS_TOKEN', distinctive: true, value: (g) => `dapi${g.hex(32)}` },
  { provider: 'Square', kind: 'access token', noun: 'Square access token', env: 'SQUARE_ACCESS_TOKEN', distinctive: true, value: (g) => `EAAA${g.b64url(60)}` },
  { provider: 'Shippo', kind: 'API token', noun: 'Shippo API token', env: 'SHIPPO_API_KEY', distinctive: true, value: (g) => `shippo_live_${g.hex(40)}` },
  { provider: 'PlanetScale', kind: 'service token', noun: 'PlanetScale token', env: 'PLANETSCALE_SERVICE_TOKEN', distinctive: true, value: (g) => `pscale_tkn_${g.b64url(43)}` },
  { provider: 'Pulumi', kind: 'access token', noun: 'Pulumi access token', env: 'PULUMI_ACCESS_TOKEN', distinctive: true, value: (g) => `pul-${g.hex(40)}` },
  { provider: 'Fly.io', kind: 'token', noun: 'Fly.io deploy token', env: 'FLY_API_TOKEN', distinctive: true, value: (g) => `fo1_${g.b64url(43)}` },
  { provider: 'age', kind: 'secret key', noun: 'age identity', env: 'SOPS_AGE_KEY', distinctive: true, value: (g) => `AGE-SECRET-KEY-1${g.pick('QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 58)}` },
  { provider: 'Alibaba Cloud', kind: 'access key id', noun: 'Alibaba access key', env: 'ALIBABA_CLOUD_ACCESS_KEY_ID', distinctive: true, value: (g) => `LTAI${g.alnum(20)}` },
  { provider: 'Dynatrace', kind: 'API token', noun: 'Dynatrace API token', env: 'DT_API_TOKEN', distinctive: true, value: (g) => `dt0c01.${g.upperAlnum(24)}.${g.upperAlnum(64)}` },
  { provider: 'Perplexity', kind: 'API key', noun: 'Perplexity API key', env: 'PERPLEXITY_API_KEY', distinctive: true, value: (g) => `pplx-${g.alnum(48)}` },
  { provider: 'Groq', kind: 'API key', noun: 'Groq API key', env: 'GROQ_API_KEY', distinctive: true, value: (g) => `gsk_${g.alnum(52)}` },
  { provider: 'Replicate', kind: 'API token', noun: 'Replicate token', env: 'REPLICATE_API_TOKEN', distinctive: true, value: (g) => `r8_${g.alnum(37)}` },
  { provider: 'Supabase', kind: 'access token', noun: 'Supabase access token', env: 'SUPABASE_ACCESS_TOKEN', distinctive: true, value: (g) => `sbp_${g.hex(40)}` },
  { provider: 'Docker Hub', kind: 'PAT', noun: 'Docker Hub token', env: 'DOCKERHUB_TOKEN', distinctive: true, value: (g) => `dckr_pat_${g.b64url(27)}` },
  { provider: 'Okta', kind: 'API token', noun: 'Okta API token', env: 'OKTA_API_TOKEN', distinctive: false, value: (g) => `00${g.b64url(40)}` },
  { provider: 'Snyk', kind: 'API token', noun: 'Snyk token', env: 'SNYK_TOKEN', distinctive: false, value: (g) => g.uuid() },
  { provider: 'Algolia', kind: 'admin API key', noun: 'Algolia admin key', env: 'ALGOLIA_ADMIN_KEY', distinctive: false, value: (g) => g.hex(32) },
  { provider: 'Netlify', kind: 'access token', noun: 'Netlify token', env: 'NETLIFY_AUTH_TOKEN', distinctive: true, value: (g) => `nfp_${g.alnum(36)}` },
  { provider: 'Vercel', kind: 'access token', noun: 'Vercel token', env: 'VERCEL_TOKEN', distinctive: false, value: (g) => g.alnum(24) },
  { provider: 'Mapbox', kind: 'secret token', noun: 'Mapbox secret token', env: 'MAPBOX_SECRET_TOKEN', distinctive: true, value: (g) => `sk.eyJ1Ijoi${g.b64url(40)}.${g.b64url(22)}` },
  { provider: 'JFrog', kind: 'API key', noun: 'Artifactory API key', env: 'ARTIFACTORY_API_KEY', distinctive: true, value: (g) => `AKCp${g.alnum(69)}` },
  { provider: '1Password', kind: 'service account token', noun: '1Password service account token', env: 'OP_SERVICE_ACCOUNT_TOKEN', distinctive: true, value: (g) => `ops_eyJ${g.b64(300)}` },
  { provider: 'Twitter', kind: 'bearer token', noun: 'Twitter bearer token', env: 'TWITTER_BEARER_TOKEN', distinctive: false, value: (g) => `${'A'.repeat(22)}${g.alnum(30)}%3D${g.alnum(50)}` },
  { provider: 'Sourcegraph', kind: 'access token', noun: 'Sourcegraph token', env: 'SRC_ACCESS_TOKEN', distinctive: true, value: (g) => `sgp_${g.hex(16)}_${g.hex(40)}` },
  { provider: 'Engram', kind: 'member token', noun: 'Engram member token', env: 'ENGRAM_TOKEN', distinctive: true, value: (g) => `egm_${g.b64url(43)}` },
  { provider: 'Engram', kind: 'invite key', noun: 'Engram invite key', env: 'ENGRAM_INVITE_KEY', distinctive: true, value: (g) => `ek_${base64url('{"alg":"dir","enc":"A256GCM"}')}..${g.b64url(22)}.${g.b64url(60)}.${g.b64url(22)}` },
  { provider: 'Django', kind: 'SECRET_KEY', noun: 'Django secret key', env: 'SECRET_KEY', distinctive: false, value: (g) => g.pick('abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)', 50) },
  { provider: 'Rails', kind: 'secret_key_base', noun: 'Rails secret_key_base', env: 'SECRET_KEY_BASE', distinctive: false, value: (g) => g.hex(128) },
  { provider: 'Webhook HMAC', kind: 'shared secret', noun: 'webhook signing secret', env: 'WEBHOOK_SECRET', distinctive: false, value: (g) => g.hex(64) },
];

// Sentence shapes. Distinctive credentials also appear bare; the others only where something
// names them, since a bare 32-hex string could as well be a checksum.
const SHAPES: Record<string, (c: Credential, v: string) => string> = {
  prose: (c, v) => `The ${c.noun} for the staging account is ${v}.`,
  env: (c, v) => `Set ${c.env}=${v} in .env.production before deploying`,
  json: (c, v) => `config/prod.json contains {"${camel(c.env)}": "${v}", "region": "eu-west-1"}`,
  yaml: (c, v) => `In values.yaml under ${c.provider.toLowerCase().replace(/\W+/g, '')}: ${c.env.toLowerCase()}: ${v}`,
  label: (c, v) => `${c.noun}: ${v} (rotate after the demo)`,
  shell: (c, v) => `Run it locally with export ${c.env}="${v}" and then npm start`,
  bare: (_c, v) => `Ran the smoke test with ${v} and it passed`,
  quoted: (c, v) => `Use '${v}' when the ${c.provider} CLI asks for a token.`,
  sentenceEnd: (_c, v) => `Rotated it yesterday; the replacement is ${v}.`,
  parens: (c, v) => `Everything for the demo is in the shared doc (${c.noun}: ${v})`,
  markdown: (c, v) => `Paste \`${v}\` into the ${c.provider} settings page`,
  setTo: (c, v) => `I set the ${c.noun} to ${v} yesterday.`,
  kindFrom: (c, v) => `The ${c.kind} we got from ${c.provider} support is ${v}`,
  goAssign: (c, v) => `${c.env} := "${v}"`,
  pyEnviron: (c, v) => `os.environ["${c.env}"] = "${v}"`,
  arrow: (c, v) => `${c.noun} -> ${v}`,
  fyi: (_c, v) => `fyi ${v} is the one that works`,
  xml: (_c, v) => `<token>${v}</token> in the old XML config`,
  list: (c, v) => `- ${c.provider}: ${v}`,
  query: (_c, v) => `the callback got token=${v}&scope=read`,
  envComment: (c, v) => `${c.env}="${v}" # prod`,
  heres: (c, v) => `Here's the ${c.noun}: ${v}`,
  qualified: (c, v) => `the ${c.noun} (prod) = ${v}`,
  dockerfile: (c, v) => `ENV ${c.env} ${v}`,
  k8sEnv: (c, v) => `- name: ${c.env}\n  value: "${v}"`,
  dotnet: (c, v) => `<add key="${c.env}" value="${v}" />`,
  js: (c, v) => `const ${camel(c.env)} = '${v}';`,
  creds: (c, v) => `${c.provider} creds - ${c.kind}: ${v}`,
  doNotShare: (_c, v) => `Token (do not share!): ${v}`,
  fromVault: (_c, v) => `"${v}" - that's the one from the vault`,
  newCreds: (_c, v) => `new creds: ${v}, old ones revoked`,
  paste: (_c, v) => `paste this in: ${v}`,
  bullet: (_c, v) => `* ${v}`,
  toml: (c, v) => `[${c.provider.toLowerCase().replace(/\W+/g, '')}]\n${c.env.toLowerCase()} = "${v}"`,
};
const NAMED_ROTATION = [
  ['prose', 'env', 'json', 'setTo', 'kindFrom', 'envComment', 'heres'],
  ['label', 'shell', 'yaml', 'parens', 'goAssign', 'qualified', 'dockerfile'],
  ['prose', 'yaml', 'label', 'toml', 'pyEnviron', 'k8sEnv', 'dotnet'],
  ['env', 'json', 'shell', 'parens', 'arrow', 'js', 'creds'],
];
const DISTINCTIVE_ROTATION = [
  ['bare', 'prose', 'env', 'sentenceEnd', 'fyi', 'xml', 'doNotShare', 'fromVault'],
  ['quoted', 'json', 'label', 'parens', 'list', 'query', 'newCreds', 'paste'],
  ['bare', 'yaml', 'shell', 'markdown', 'arrow', 'fyi', 'bullet', 'doNotShare'],
  ['quoted', 'prose', 'json', 'setTo', 'xml', 'list', 'fromVault', 'newCreds'],
];

/** Credentials whose shape is a whole sentence rather than a value. */
function structured(g: Gen): SecretSample[] {
  const pem = (label: string, body: string) => `-----BEGIN ${label} ${'PRIVATE'} KEY-----\n${body}\n-----END ${label} ${'PRIVATE'} KEY-----`;
  const lines = (n: number) => Array.from({ length: n }, () => g.b64(64)).join('\n');
  const s = (provider: string, kind: string, text: string): SecretSample => ({ provider, kind, text });
  return [
    s('Private key', 'RSA', `The deploy key (keep it in the vault, not here): ${pem('RSA', lines(4))}`),
    s('Private key', 'OpenSSH', `ssh key for the bastion host:\n${pem('OPENSSH', `b3BlbnNzaC1rZXktdjEAAAAA${lines(3)}`)}`),
    s('Private key', 'EC', `${pem('EC', lines(2))} is the signing key for the license server`),
    s('Private key', 'PKCS#8 in JSON', `The GCP service account JSON has "private_key": "-----BEGIN ${'PRIVATE'} KEY-----\\n${g.b64(64)}\\n${g.b64(64)}\\n-----END ${'PRIVATE'} KEY-----\\n"`),
    s('PGP', 'private key block', `Release signing: -----BEGIN PGP ${'PRIVATE'} KEY BLOCK-----\n\n${lines(3)}\n-----END PGP ${'PRIVATE'} KEY BLOCK-----`),
    s('PostgreSQL', 'connection URL', `DATABASE_URL is postgres://app_user:${g.alnum(20)}@prod-db.internal:5432/app`),
    s('PostgreSQL', 'connection URL', `Reporting replica: postgresql://readonly:${g.alnum(16)}@10.0.3.12/reports?sslmode=require`),
    s('MySQL', 'connection URL', `The legacy app connects with mysql://root:${g.alnum(12)}@legacy-db:3306/shop`),
    s('MongoDB', 'connection URL', `Atlas cluster: mongodb+srv://svc-api:${g.alnum(18)}@cluster0.ab1cd.mongodb.net/prod?retryWrites=true`),
    s('Redis', 'connection URL', `Sessions live in redis://:${g.alnum(24)}@cache.internal:6379/0`),
    s('Redis', 'connection URL', `REDIS_URL=rediss://default:${g.alnum(32)}@eu1-upstash.io:6379`),
    s('RabbitMQ', 'connection URL', `The worker reads amqp://jobs:${g.alnum(16)}@mq.internal:5672/%2F`),
    s('SMTP', 'connection URL', `Mail goes out through smtp://postmaster%40mg.example.com:${g.alnum(20)}@smtp.mailgun.org:587`),
    s('Azure', 'storage connection string', `AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=engramprod;AccountKey=${g.b64(86)}==;EndpointSuffix=core.windows.net`),
    s('Azure', 'storage account key', `The blob storage AccountKey=${g.b64(86)}== is shared by both regions`),
    s('Azure', 'Service Bus key', `Endpoint=sb://engram.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${g.b64(43)}=`),
    s('Slack', 'incoming webhook', `Alerts post to https://hooks.slack.com/services/T${g.upperAlnum(10)}/B${g.upperAlnum(10)}/${g.alnum(24)}`),
    s('Discord', 'webhook', `Deploy notices go to https://discord.com/api/webhooks/${g.digits(19)}/${g.b64url(68)}`),
    s('Discord', 'webhook', `Old webhook (still live): https://discordapp.com/api/webhooks/${g.digits(18)}/${g.b64url(68)}.`),
    s('Microsoft Teams', 'webhook', `Teams channel hook: https://engram.webhook.office.com/webhookb2/${g.uuid()}@${g.uuid()}/IncomingWebhook/${g.hex(32)}/${g.uuid()}`),
    s('JWT', 'signed token', `A valid admin session for testing: eyJ${base64url('{"alg":"HS256","typ":"JWT"}').slice(3)}.${base64url(`{"sub":"${g.digits(8)}","role":"admin","iat":1718000000}`)}.${g.b64url(43)}`),
    s('HTTP', 'Basic authorization', `The staging proxy wants Authorization: Basic ${base64(`deploy:${g.alnum(14)}`)}`),
    s('HTTP', 'Bearer token', `curl -H "Authorization: Bearer ${g.alnum(40)}" https://api.internal/v1/jobs`),
    s('HTTP', 'API key header', `curl https://api.vendor.io/v2/usage -H 'X-API-Key: ${g.alnum(32)}'`),
    s('Twilio', 'auth token (prose)', `Twilio: account AC${g.hex(32)}, auth token ${g.hex(32)}`),
    s('AWS', 'secret access key (unlabelled)', `AWS creds for the CI user are AKIA${g.b32(16)} / ${g.b64(40)}`),
    s('AWS', 'secret access key (unlabelled)', `The backup job signs S3 requests with ${g.b64(19)}/${g.b64(20)} as its AWS secret`),
    s('Telegram', 'bot API URL', `The bot calls https://api.telegram.org/bot${g.digits(10)}:AA${g.b64url(33)}/sendMessage`),
    s('Django', 'settings.py', `settings.py still has SECRET_KEY = 'django-insecure-${g.pick('abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)', 50)}'`),
    s('Webhook HMAC', 'signing key in YAML', `github_webhook: { hmac_key: ${g.hex(64)} }`),
    s('Webhook HMAC', 'signing key assignment', `signing_secret = "${g.hex(64)}" for the Zapier hook`),
    s('npm', '.npmrc auth token', `.npmrc has //registry.npmjs.org/:_authToken=npm_${g.alnum(36)}`),
    s('Generic', 'password in config', `db.password=${g.alnum(10)}${g.digits(3)}!${g.letters(4)} in application.properties`),
    s('Generic', 'password in CLI', `mysql -u admin --password='${g.alnum(16)}' -h legacy-db`),
  ];
}

/** Fake credentials in sentences; deterministic. */
export function secretCorpus(): SecretSample[] {
  const g = generator(20240611);
  const samples: SecretSample[] = [];
  CREDENTIALS.forEach((c, i) => {
    const shapes = (c.distinctive ? DISTINCTIVE_ROTATION : NAMED_ROTATION)[i % 4]!;
    for (const shape of shapes) samples.push({ provider: c.provider, kind: c.kind, text: SHAPES[shape]!(c, c.value(g)) });
  });
  return [...samples, ...structured(g)];
}

/** Texts without secrets, chosen to look like them; deterministic. */
export function lookAlikeCorpus(): LookAlike[] {
  const g = generator(19700101);
  const l = (kind: string, text: string): LookAlike => ({ kind, text });
  const sha = () => g.hex(40);
  const sha256 = () => g.hex(64);
  return [
    // Git object names.
    l('git sha', `Fixed in commit ${sha()} on main`),
    l('git sha', `Reverted ${sha()} because it broke the importer`),
    l('git sha', `GIT_SHA=${sha()} is baked into the image labels`),
    l('git sha', `The deploy pinned ref: ${sha()}`),
    l('git sha', `git checkout ${g.hex(7)} to get the last good build`),
    l('git sha', `{"commit": "${sha()}", "branch": "main"}`),
    l('git sha', `Merge ${g.hex(12)}..${g.hex(12)} into release/2.14`),
    l('git sha', `The sourcegraph indexer is at revision ${sha()} now`),
    l('git sha', `uses: actions/checkout@${sha()} # v4.1.7`),
    l('git sha', `Submodule vendor/protos points at ${sha()}`),
    // UUIDs and other ids.
    l('uuid', `Workspace ids look like ${g.uuid()}`),
    l('uuid', `request_id=${g.uuid()} failed with a 502`),
    l('uuid', `The Heroku app id is ${g.uuid()} (not a secret, it is in the dashboard URL)`),
    l('uuid', `tenant: ${g.uuid()}`),
    l('uuid', `{"workspace_id": "${g.uuid()}", "scope": "billing"}`),
    l('uuid', `Trace ${g.hex(32)} shows the slow span in the auth service`),
    l('uuid', `traceparent: 00-${g.hex(32)}-${g.hex(16)}-01`),
    l('ulid', `job id 01J${g.pick('0123456789ABCDEFGHJKMNPQRSTVWXYZ', 23)} was retried twice`),
    l('ulid', `BUILD_ID=01J${g.pick('0123456789ABCDEFGHJKMNPQRSTVWXYZ', 23)} is printed at the top of the CI log`),
    l('object id', `Stripe customer cus_${g.alnum(14)} was charged twice`),
    l('object id', `The payment intent pi_${g.alnum(24)} is stuck in requires_action`),
    l('object id', `price_${g.alnum(24)} is the Pro plan's monthly price`),
    l('object id', `OpenAI returned chatcmpl-${g.alnum(29)} with finish_reason=length`),
    l('object id', `Anthropic message msg_01${g.alnum(22)} hit max_tokens`),
    l('object id', `Slack channel C${g.upperAlnum(10)} is #deploys`),
    l('object id', `Twilio account SID AC${g.hex(32)} is the production account`),
    l('object id', `Mongo document _id: ObjectId("${g.hex(24)}")`),
    l('object id', `nanoid keys like ${g.b64url(21)} are used for share links`),
    l('object id', `container ${g.hex(64)} was OOM-killed`),
    l('object id', `Pod api-${g.lower(10)}-${g.lowerAlnum(5)} keeps restarting`),
    l('object id', `The Datadog monitor id is ${g.digits(9)}`),
    l('object id', `Google Analytics uses G-${g.upperAlnum(10)}`),
    l('object id', `GitHub App id 123456, installation ${g.digits(8)}`),
    l('object id', `AWS account ${g.digits(12)} owns the prod VPC vpc-${g.hex(17)}`),
    l('object id', `Role ARN arn:aws:iam::${g.digits(12)}:role/engram-deploy`),
    l('object id', `The Ethereum treasury address is 0x${g.hex(40)}`),
    l('object id', `S3 object uploads/2024/06/${g.uuid()}.png`),
    // Checksums and digests.
    l('checksum', `The tarball checksum is sha256 ${sha256()}`),
    l('checksum', `checksum: ${sha256()}`),
    l('checksum', `sha256sum says ${sha256()}  engram-2.14.3.tgz`),
    l('checksum', `SHA256 (engram.dmg) = ${sha256()}`),
    l('checksum', `image: ghcr.io/engram/server@sha256:${sha256()}`),
    l('checksum', `"integrity": "sha512-${g.b64(86)}=="`),
    l('checksum', `<script integrity="sha384-${g.b64(64)}" crossorigin>`),
    l('checksum', `md5: ${g.hex(32)} for the seed dump`),
    l('checksum', `The ETag is "${g.hex(32)}"`),
    l('checksum', `Expected hash ${sha256()}, got ${sha256()}`),
    l('checksum', `LIC_FILES_CHKSUM = "file://LICENSE;md5=${g.hex(32)}"`),
    l('checksum', `go.sum: golang.org/x/text v0.14.0 h1:${g.b64(43)}=`),
    l('checksum', `The git tree hash ${sha()} matches the release`),
    l('checksum', `Password hashes use argon2id; hash_length is 32 bytes`),
    l('checksum', `The content hash for the cache key is ${sha256()}`),
    // Versions.
    l('version', 'Release v2.14.3 shipped the new importer'),
    l('version', 'We run node 22.18.0 and npm 10.9.2 in CI'),
    l('version', 'version: 1.0.0-rc.1+build.20240611.5f0c1a9'),
    l('version', 'pgvector 0.8.0 with postgres 16.4 on Debian bookworm'),
    l('version', 'User agent Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/126.0.6478.127 Safari/537.36'),
    l('version', 'api_version: 2024-06-20'),
    l('version', 'STRIPE_API_VERSION=2024-06-20.acacia'),
    l('version', 'The Python client is openai==1.35.3, anthropic==0.28.1'),
    l('version', 'kernel 6.8.0-1009-aws on the build hosts'),
    l('version', 'Docker image ghcr.io/engram/server:2.14.3-alpine3.20'),
    l('version', 'Terraform required_version = ">= 1.7.0, < 2.0.0"'),
    l('version', 'The SDK is @modelcontextprotocol/sdk@1.12.1'),
    // URLs without a password.
    l('url', 'The public docs are at https://docs.example.com/api/v2/auth'),
    l('url', 'Clone with https://github.com/engram/engram.git or git@github.com:engram/engram.git'),
    l('url', 'ssh://git@gitlab.internal:2222/platform/infra.git'),
    l('url', 'DATABASE_URL=postgres://app@db.internal:5432/app (password from the vault)'),
    l('url', 'redis://cache.internal:6379/0 holds the sessions'),
    l('url', 'mongodb+srv://cluster0.ab1cd.mongodb.net/prod?retryWrites=true&w=majority'),
    l('url', 'Sentry DSN is https://' + g.hex(32) + '@o4505000000.ingest.sentry.io/4505000000001'),
    l('url', 'The reset link looks like https://app.example.com/reset?token=<token>'),
    l('url', 'http://[::1]:8080/healthz answers 200'),
    l('url', 'Grafana dashboard https://grafana.internal/d/' + g.alnum(9) + '/api-latency?orgId=1&from=now-6h'),
    l('url', 'Presigned URLs expire after 15 minutes: https://bucket.s3.amazonaws.com/key?X-Amz-Expires=900'),
    l('url', 'The callback is https://api.example.com/oauth/callback?state=xyz&code=...'),
    l('url', 'postgres://user:@localhost/app works for local trust auth'),
    l('url', 'The registry mirror is https://npm.internal.example.com/repository/npm-group/'),
    l('url', 'amqp://guest@localhost:5672/ in docker-compose'),
    // Names of variables and secrets, and placeholders.
    l('env name', 'JWT_SECRET is read from the environment; rotate it with the runbook in docs/security.md'),
    l('env name', 'The Stripe API key lives in STRIPE_API_KEY (1Password vault "payments")'),
    l('env name', 'Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY from the CI secrets store'),
    l('env name', 'Required: OPENAI_API_KEY, ANTHROPIC_API_KEY, GITHUB_TOKEN, SLACK_WEBHOOK_URL'),
    l('env name', 'The GitHub Actions workflow uses secrets.GITHUB_TOKEN to publish'),
    l('env name', 'secretKeyRef: { name: engram-secrets, key: ENGRAM_SECRET }'),
    l('env name', 'The password field is called password_hash in the users table'),
    l('env name', 'client_secret_basic is the token endpoint auth method'),
    l('env name', 'The API key header is X-Api-Key and the token header is X-Engram-Token'),
    l('env name', 'DJANGO_SECRET_KEY_FILE=/run/secrets/django_secret_key'),
    l('placeholder', 'Connect with postgres://app:<password>@db.internal:5432/app'),
    l('placeholder', 'DATABASE_URL=postgres://user:${DB_PASSWORD}@localhost/app in .env.example'),
    l('placeholder', 'Tokens are sent as Authorization: Bearer <token>'),
    l('placeholder', 'Authorization: Bearer $ENGRAM_TOKEN'),
    l('placeholder', 'password = "changeme" only in the local docker-compose'),
    l('placeholder', 'api_key: ${OPENAI_API_KEY}'),
    l('placeholder', 'token: {{ secrets.NPM_TOKEN }}'),
    l('placeholder', 'client_secret: $(vault kv get -field=secret kv/google)'),
    l('placeholder', 'password=os.environ["DB_PASSWORD"]'),
    l('placeholder', 'apiKey: process.env.STRIPE_SECRET_KEY'),
    l('placeholder', 'STRIPE_SECRET_KEY=sk_live_... goes in the vault, never here'),
    l('placeholder', `GITHUB_TOKEN=ghp_${'x'.repeat(36)}`),
    l('placeholder', 'OPENAI_API_KEY=sk-your-key-here'),
    l('placeholder', 'AWS_SECRET_ACCESS_KEY=<your-secret-access-key>'),
    l('placeholder', 'password: ********'),
    l('placeholder', 'SECRET_KEY = "replace-me-in-production"'),
    l('placeholder', 'webhook_secret: REDACTED'),
    l('placeholder', 'token = "%(token)s" in the Python template'),
    l('placeholder', 'ENGRAM_ADMIN_TOKEN=@ENGRAM_ADMIN_TOKEN@ is substituted at build time'),
    l('placeholder', 'export SLACK_BOT_TOKEN=xoxb-your-bot-token'),
    l('placeholder', 'curl -u "$USER:$PASS" https://api.internal/v1'),
    // Base64 and other encodings of ordinary text.
    l('base64', `payload: ${base64('{"event":"deploy","service":"api","ok":true}')}`),
    l('base64', `The header value is ${base64('hello world, this is the deploy note')}`),
    l('base64', `content: ${base64('The quick brown fox jumps over the lazy dog again')}`),
    l('base64', `cursor=${base64url('{"after":"2024-06-11T10:00:00Z","id":1234}')}`),
    l('base64', `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${g.b64(43)} deploy@ci`),
    l('base64', `ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ${g.b64(120)} alice@laptop`),
    l('base64', `-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A${g.b64(64)}\n-----END PUBLIC KEY-----`),
    l('base64', `-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE${g.b64(64)}\n-----END CERTIFICATE-----`),
    l('base64', `The favicon is data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQ${g.b64(40)}`),
    l('base64', `Kubernetes stores it as ${base64('postgres')} in data.username`),
    // Ordinary technical facts that mention secrets, keys and tokens.
    l('prose', 'The auth service rate-limits to 1000 req/s per IP using a sliding window in Redis'),
    l('prose', 'Redis runs on port 6379 and Postgres on 5432'),
    l('prose', 'Session cookies are signed with HMAC-SHA256'),
    l('prose', 'max_token_length = 4096 for the embedding model'),
    l('prose', 'The sk-learn pipeline trains nightly'),
    l('prose', 'The API key is rotated every 90 days by the rotate-keys job'),
    l('prose', 'The token is valid for 3600 seconds and refreshed 5 minutes early'),
    l('prose', 'The password must be at least 12 characters long'),
    l('prose', 'token_ttl: 3600'),
    l('prose', 'password_min_length = 12'),
    l('prose', 'max_tokens: 4096, temperature: 0.2'),
    l('prose', 'Secret rotation is handled by External Secrets Operator v0.9.20'),
    l('prose', 'The secret name is prod/engram/database in AWS Secrets Manager'),
    l('prose', 'cache_key: deps-v3-linux-node22-lockfile'),
    l('prose', 'primary_key: workspace_id, fact_id'),
    l('prose', 'The access token is a JWT signed with RS256; the public keys are at /.well-known/jwks.json'),
    l('prose', 'tokenizer: cl100k_base'),
    l('prose', 'Keys in the sorted set are named rate:{workspace}:{minute}'),
    l('prose', 'CSRF tokens are bound to the session id and checked on every POST'),
    l('prose', 'The Slack webhook URL is stored in SLACK_WEBHOOK_URL, not in the repo'),
    l('prose', 'The license key format is XXXX-XXXX-XXXX-XXXX'),
    l('prose', 'auth: { type: oauth2, flow: authorization_code }'),
    l('prose', 'The Datadog agent runs as a DaemonSet with DD_SITE=datadoghq.eu'),
    l('prose', 'Twilio sends from +14155550123 and the messaging service is the default one'),
    l('prose', 'Discord bot permissions integer is 274877975552'),
    l('prose', 'Telegram chat id -1001234567890 is the ops channel'),
    l('prose', 'secret_key_base is generated by rails credentials:edit on first boot'),
    l('prose', 'The GPG key fingerprint is ' + g.HEX(40)),
    l('prose', 'IPv6 prefix 2001:db8:85a3::8a2e:370:7334 is the internal range'),
    l('prose', 'MAC address 00:1A:2B:3C:4D:5E belongs to the build runner'),
    l('prose', 'Colours: primary #1F6FEB, danger #CF222E'),
    l('prose', 'The timestamp 2024-06-11T10:15:30.123456789Z comes from the worker'),
    l('prose', 'Build cache path /home/runner/.cache/engram/3f2a9c1d8e7b6a5f/node_modules'),
    l('prose', 'The feature flag new_importer_v2 is on for 25% of workspaces'),
    l('prose', 'Kafka topic engram.facts.v1 has 12 partitions and retention.ms=604800000'),
    l('prose', 'The hmac_algorithm is sha256 and the signature header is X-Hub-Signature-256'),
    l('prose', 'webhook secret length: 64 hex characters, generated with openssl rand -hex 32'),
    l('prose', 'sk_live keys must never be committed; use restricted rk_ keys for the reporting job'),
    // Added after two blind runs (misses and false alarms were fixed in the scanner, not here).
    l('uuid', 'The webhook delivery id is ' + g.uuid()),
    l('git sha', 'secret scanning found nothing in ' + sha()),
    l('prose', 'token count: 128000 for claude-3-5-sonnet-20240620'),
    l('prose', 'API keys are prefixed with egm_ and are 47 characters long'),
    l('object id', 'The password reset email template id is d-' + g.hex(32)),
    l('env name', 'AUTH_PROVIDER=auth0 and AUTH_DOMAIN=engram.eu.auth0.com'),
    l('ulid', 'CACHE_BUSTER=20240611T101530Z-' + g.hex(7)),
    l('checksum', 'The public key fingerprint SHA256:' + g.b64(43) + ' is pinned'),
    l('checksum', 'ETag W/"5e15153d-120f"'),
    l('env name', 'session_cookie_name = "__Host-engram_session"'),
    l('prose', 'The access token expires_in 3599 and the refresh token expires after 30 days'),
    l('env name', 'Use the secretKeyRef named engram-db-credentials in the manifests'),
    l('prose', 'Kubernetes secret engram-tls has tls.crt and tls.key'),
    l('object id', 'Bucket engram-backups-eu-west-1-' + g.digits(12)),
    l('object id', 'OAuth client id ' + g.digits(12) + '-' + g.lowerAlnum(32) + '.apps.googleusercontent.com'),
    l('checksum', 'npm audit signatures keyid SHA256:' + g.b64(43)),
    l('uuid', 'X-Request-Id: ' + g.hex(32)),
    l('prose', 'password policy: min 12, requires 1 digit'),
    l('object id', 'The JWT header is {"alg":"RS256","kid":"' + g.hex(16) + '"}'),
    l('object id', 'kid: ' + g.b64url(43)),
    l('object id', 'The secret ARN is arn:aws:secretsmanager:eu-west-1:' + g.digits(12) + ':secret:prod/engram/db-' + g.letters(6)),
    l('git sha', 'commit_sha: ' + sha()),
    l('git sha', 'IMAGE_TAG=sha-' + g.hex(7)),
    l('checksum', 'the hashed token (sha256) stored in the DB is ' + sha256()),
    l('env name', 'Vault path secret/data/engram/prod holds the credentials'),
    l('object id', 'The API key ID is ' + g.alnum(20)),
    l('object id', 'Twilio phone number SID PN' + g.hex(32)),
    l('prose', 'The TOTP secret length is 20 bytes (160 bits)'),
    l('uuid', 'Azure tenant id ' + g.uuid() + ' and subscription ' + g.uuid()),
    l('base64', 'The logo is iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='),
    l('git sha', 'Deployed build 7f3e2a1 of the web app at 14:02'),
    l('object id', 'The S3 key for the export is exports/2024/06/11/' + g.uuid() + '.ndjson.gz'),
    l('object id', 'AWS region eu-west-1, bucket arn:aws:s3:::engram-exports, KMS key alias/engram-prod'),
    l('uuid', 'We use aws kms key ' + g.uuid() + ' for envelope encryption'),
    l('object id', 'The Cloudflare zone id is ' + g.hex(32)),
    l('uuid', 'Datadog trace_id=' + g.digits(19) + ' span_id=' + g.digits(19)),
    l('env name', 'The secret is mounted at /var/run/secrets/engram/db-password'),
    l('url', 'The token endpoint is https://oauth2.googleapis.com/token'),
    l('env name', 'Set ENGRAM_SECRET to the output of openssl rand -base64 48'),
    l('prose', 'GitHub webhook secret is configured in the repo settings under Webhooks'),
    l('placeholder', '- name: DATABASE_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password'),
    l('url', '<add key="ApiBaseUrl" value="https://api.example.com/v2" />'),
    l('version', 'ENV NODE_VERSION 22.18.0'),
    l('object id', 'The Stripe webhook endpoint id is we_' + g.alnum(24)),
    l('object id', 'JWT kid a1b2c3d4e5f6 rotates monthly'),
    l('env name', 'private_key_id is in the service account JSON but the key itself is in Secret Manager'),
    l('prose', 'The session secret rotates weekly; current version 17'),
    l('checksum', 'GitHub Actions cache key: Linux-node-' + sha256()),
    l('checksum', 'Stripe-Signature: t=1718000000,v1=' + sha256()),
    l('checksum', 'X-Hub-Signature-256: sha256=' + sha256()),
    l('checksum', 'The token hash column stores sha256(token) as ' + sha256()),
    l('checksum', 'password_hash: $argon2id$v=19$m=65536,t=3,p=4$' + g.b64(22) + '$' + g.b64(43)),
    l('uuid', 'The Terraform state lock id is ' + g.uuid()),
    l('version', 'Sentry release engram@2.14.3+' + g.hex(7)),
    l('env name', 'OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-dataset=engram'),
    l('prose', 'The api token scope is read:facts write:facts'),
    l('prose', 'keyring: gnome-keyring-daemon is running'),
    l('prose', 'Use ssh-keygen -t ed25519 -C deploy@engram to make a new key'),
    l('base64', 'wireguard public key ' + g.b64(43) + '='),
    l('prose', 'The Telegram bot username is @engram_alerts_bot'),
    l('object id', 'Discord guild id ' + g.digits(18) + ', channel ' + g.digits(19)),
    l('env name', 'AWS_REGION=eu-west-1 AWS_PROFILE=engram-prod'),
    l('checksum', 'The build hash ' + g.b64url(20) + ' appears in the asset file names'),
    l('prose', 'token_type: Bearer'),
    l('prose', 'refresh_token_rotation: enabled'),
    l('prose', 'salt rounds = 12 for bcrypt'),
    l('checksum', 'Git LFS oid sha256:' + sha256() + ' size 1048576'),
    l('checksum', 'The npm package integrity for left-pad is sha1-' + g.b64(27) + '='),
    l('prose', 'Kubernetes service account token is mounted at /var/run/secrets/kubernetes.io/serviceaccount/token'),
    l('prose', "Vault's transit key engram-facts is at version 3"),
  ];
}
