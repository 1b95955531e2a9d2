/**
 * Webhook URLs the policy must refuse outside development mode: every non-public address in the
 * spellings people (and attackers) use. Shared by the policy's unit test and the PATCH route test.
 */
export const FORBIDDEN_URLS: readonly string[] = [
  // scheme and shape
  'http://hooks.example.com/webhook',
  'ftp://hooks.example.com/webhook',
  'javascript:alert(1)',
  'hooks.example.com/webhook',
  'https://user:pass@hooks.example.com/webhook',
  'https://hooks.example.com@127.0.0.1/webhook',
  // loopback, every spelling
  'https://127.0.0.1/webhook',
  'https://127.0.0.1:443/webhook',
  'https://127.1/webhook',
  'https://127.0.1/webhook',
  'https://2130706433/webhook',
  'https://0x7f000001/webhook',
  'https://0x7f.0x0.0x0.0x1/webhook',
  'https://0177.0.0.1/webhook',
  'https://017700000001/webhook',
  'https://0177.1/webhook',
  'https://127.0.0.1./webhook',
  'https://127.255.255.254/webhook',
  'https://%31%32%37.0.0.1/webhook',
  'https://１２７.０.０.１/webhook',
  'https://localhost/webhook',
  'https://LOCALHOST:8443/webhook',
  'https://api.localhost/webhook',
  'https://[::1]/webhook',
  'https://[0:0:0:0:0:0:0:1]/webhook',
  // unspecified
  'https://0.0.0.0/webhook',
  'https://0/webhook',
  'https://[::]/webhook',
  // private (RFC 1918) and CGNAT
  'https://10.0.0.1/webhook',
  'https://10.255.255.255/webhook',
  'https://167772161/webhook',
  'https://012.0.0.1/webhook',
  'https://172.16.0.1/webhook',
  'https://172.31.255.254/webhook',
  'https://192.168.1.1/webhook',
  'https://0xc0.0xa8.1.1/webhook',
  'https://192.168.257/webhook',
  'https://100.64.0.1/webhook',
  'https://100.127.255.255/webhook',
  'https://100.100.100.200/webhook',
  // link-local and cloud metadata
  'https://169.254.169.254/latest/meta-data/',
  'https://0xa9fea9fe/latest/meta-data/',
  'https://2852039166/latest/meta-data/',
  'https://169.254.43518/latest/meta-data/',
  'https://0251.0376.0251.0376/latest/meta-data/',
  'https://[fd00:ec2::254]/latest/meta-data/',
  'https://192.0.0.192/webhook',
  'https://metadata.google.internal/computeMetadata/v1/',
  'https://[fe80::1]/webhook',
  // IPv6 forms that carry an IPv4 address
  'https://[::ffff:127.0.0.1]/webhook',
  'https://[::ffff:7f00:1]/webhook',
  'https://[0:0:0:0:0:ffff:7f00:1]/webhook',
  'https://[::ffff:10.0.0.1]/webhook',
  'https://[::ffff:169.254.169.254]/webhook',
  'https://[0:0:0:0:0:ffff:192.168.0.1]/webhook',
  'https://[::127.0.0.1]/webhook',
  'https://[::ffff:0:127.0.0.1]/webhook',
  'https://[64:ff9b::127.0.0.1]/webhook',
  'https://[64:ff9b::a9fe:a9fe]/webhook',
  'https://[2002:7f00:1::]/webhook',
  'https://[2002:c0a8:101::1]/webhook',
  'https://[2001::1]/webhook',
  // IPv6 private, multicast, reserved
  'https://[fc00::1]/webhook',
  'https://[fd12:3456:789a::1]/webhook',
  'https://[fec0::1]/webhook',
  'https://[ff02::1]/webhook',
  'https://[2001:db8::1]/webhook',
  'https://[100::1]/webhook',
  // IPv4 multicast, reserved, documentation, benchmarking
  'https://224.0.0.1/webhook',
  'https://239.255.255.250/webhook',
  'https://240.0.0.1/webhook',
  'https://255.255.255.255/webhook',
  'https://192.0.2.10/webhook',
  'https://198.51.100.7/webhook',
  'https://203.0.113.9/webhook',
  'https://198.18.0.1/webhook',
  // names that can only be internal
  'https://intranet/webhook',
  'https://printer.local/webhook',
  'https://router.home.arpa/webhook',
];

/** Outside development mode these are fine as written (names are judged again at connect time). */
export const ALLOWED_URLS: readonly string[] = [
  'https://hooks.example.com/webhook',
  'https://hooks.example.com:8443/path?query=1',
  'https://8.8.8.8/webhook',
  'https://[2606:4700:4700::1111]/webhook',
  'https://[::ffff:8.8.8.8]/webhook',
  'https://[2002:808:808::1]/webhook',
  'https://xn--bcher-kva.example/webhook',
];

/** The development-mode exception, and what stays refused even then. */
export const DEVELOPMENT_ONLY_URLS: readonly string[] = [
  'http://localhost:3000/webhook',
  'https://localhost/webhook',
  'http://127.0.0.1:9000/webhook',
  'http://[::1]:8080/webhook',
];
export const REFUSED_EVEN_IN_DEVELOPMENT: readonly string[] = [
  'http://hooks.example.com/webhook',
  'http://10.0.0.1/webhook',
  'http://127.0.0.2/webhook',
  'http://[::ffff:127.0.0.1]/webhook',
  'https://169.254.169.254/latest/meta-data/',
  'http://api.localhost/webhook',
  'https://0.0.0.0/webhook',
];
