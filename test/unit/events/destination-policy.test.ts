// Outbound webhook destinations (issue 22 §2), checked on address literals and through a stubbed
// resolver only: nothing here resolves a name or sends a packet.
import { expect } from 'chai';
import {
  DestinationPolicy,
  DestinationRefused,
  nonPublicKind,
  parseAllowedDestinations,
  type Resolver,
} from '../../../shared/platform/events/egress/destination-policy.js';

/** A resolver that answers from a table and records every name it was asked. */
function tableResolver(table: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };
  return Object.assign(resolve, { asked });
}

const refusal = async (policy: DestinationPolicy, url: string): Promise<string | null> => {
  try {
    await policy.check(url);
    return null;
  } catch (err) {
    expect(err, url).to.be.instanceOf(DestinationRefused);
    return (err as Error).message;
  }
};

describe('outbound webhook destinations', () => {
  // Every internal form the security review reached (C1–C16), as literals: none is resolved.
  const INTERNAL = [
    'http://127.0.0.1:9464/metrics',
    'http://127.0.0.2/',
    'http://127.1/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://0.0.0.0:8080/',
    'http://[::1]/',
    'http://[::]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:10.0.0.1]/',
    'http://10.1.2.3/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/',
    'http://[fe80::1]/',
    'http://[fd00::1]/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://[ff02::1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:7f00:1::]/',
    'http://192.0.2.1/',
  ];

  it('refuses every internal address form by default, saying what it is, without resolving anything', async () => {
    const resolver = tableResolver({});
    const policy = new DestinationPolicy(undefined, resolver);
    for (const url of INTERNAL) {
      const why = await refusal(policy, url);
      expect(why, url).to.match(
        /^the URL names a .+ address \(.+\): webhooks are not sent to internal addresses unless WEBHOOK_ALLOWED_DESTINATIONS allows them$/,
      );
    }
    expect(resolver.asked).to.deep.equal([]);
    expect(await refusal(policy, 'http://127.0.0.1/')).to.include('a loopback address (127.0.0.1)');
    expect(await refusal(policy, 'http://[::ffff:127.0.0.1]/')).to.include('a loopback address (127.0.0.1)');
    expect(await refusal(policy, 'http://100.64.0.1/')).to.include('carrier-grade NAT');
  });

  it('accepts a public unicast address, and a name only when every address it resolves to is public', async () => {
    const resolver = tableResolver({
      'hooks.example.test': ['203.0.113.10'],
      'mixed.example.test': ['203.0.113.11', '10.0.0.5'],
      'v6.example.test': ['2001:db8::1'],
    });
    const policy = new DestinationPolicy(undefined, resolver);
    expect(nonPublicKind('8.8.8.8')).to.equal(null);
    expect(await refusal(policy, 'https://8.8.8.8/hook')).to.equal(null);
    // TEST-NET and documentation ranges are reserved: resolve names to them to show a refusal.
    expect(await refusal(policy, 'https://hooks.example.test/hook')).to.include('hooks.example.test resolves to a reserved address (203.0.113.10)');
    expect(await refusal(policy, 'https://mixed.example.test/hook')).to.include('resolves to a');
    expect(await refusal(policy, 'https://nowhere.example.test/hook')).to.equal('the host nowhere.example.test does not resolve');
    expect(resolver.asked).to.deep.equal(['hooks.example.test', 'mixed.example.test', 'nowhere.example.test']);
  });

  it('refuses other schemes and URLs with credentials', async () => {
    const policy = new DestinationPolicy(undefined, tableResolver({}));
    expect(await refusal(policy, 'ftp://8.8.8.8/x')).to.equal('only http and https URLs can receive webhooks');
    expect(await refusal(policy, 'https://user:secret@8.8.8.8/x')).to.match(/must not carry a user name or password/);
    expect(await refusal(policy, 'https://token@8.8.8.8/x')).to.match(/must not carry a user name or password/);
    expect(await refusal(policy, 'not a url')).to.equal('the URL is not valid');
  });

  it('lets the operator allow named hosts and ranges', async () => {
    const allowed = parseAllowedDestinations('receiver.lan, 10.20.0.0/16, 127.0.0.1, fd00:abcd::/32');
    const resolver = tableResolver({ 'receiver.lan': ['10.99.0.1'], 'other.lan': ['10.99.0.2'] });
    const policy = new DestinationPolicy(allowed, resolver);
    expect(await refusal(policy, 'http://receiver.lan:8080/hook')).to.equal(null);
    expect(await refusal(policy, 'http://RECEIVER.LAN./hook')).to.equal(null);
    expect(await refusal(policy, 'http://10.20.3.4/hook')).to.equal(null);
    expect(await refusal(policy, 'http://127.0.0.1:9999/hook')).to.equal(null);
    expect(await refusal(policy, 'http://[fd00:abcd::5]/hook')).to.equal(null);
    expect(await refusal(policy, 'http://127.0.0.2/hook')).to.match(/loopback/);
    expect(await refusal(policy, 'http://10.21.0.1/hook')).to.match(/private/);
    expect(await refusal(policy, 'http://other.lan/hook')).to.match(/other\.lan resolves to a private/);
    // A name allowed by name is not even resolved.
    expect(resolver.asked).to.deep.equal(['other.lan']);
  });

  it('refuses a bad allow list with the item named', () => {
    expect(() => parseAllowedDestinations('10.0.0.0/33')).to.throw(/"10\.0\.0\.0\/33" is not a CIDR range/);
    expect(() => parseAllowedDestinations('bad host!')).to.throw(/"bad host!" is neither a host name/);
  });

  it('pins a connection to the addresses it checked: lookup drops internal ones, and fails when none is left', async () => {
    const resolver = tableResolver({ 'rebinding.example.test': ['10.0.0.7'], 'dual.example.test': ['10.0.0.8', '8.8.4.4'] });
    const policy = new DestinationPolicy(undefined, resolver);
    const lookup = (host: string, all: boolean) =>
      new Promise<{ err: Error | null; address: unknown }>((resolve) => policy.lookup(host, { all }, (err, address) => resolve({ err, address })));
    const refused = await lookup('rebinding.example.test', true);
    expect(refused.err).to.be.instanceOf(DestinationRefused);
    expect(refused.err?.message).to.include('rebinding.example.test resolves to a private (RFC 1918) address (10.0.0.7)');
    expect((await lookup('dual.example.test', true)).address).to.deep.equal([{ address: '8.8.4.4', family: 4 }]);
    expect((await lookup('dual.example.test', false)).address).to.equal('8.8.4.4');
    expect(policy.checkBeforeConnect.bind(policy, new URL('http://127.0.0.1/'))).to.throw(DestinationRefused);
  });
});
