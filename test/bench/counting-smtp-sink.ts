import net from 'node:net';

/**
 * The bench's SMTP sink: it answers the SMTP dialogue (with PIPELINING) and counts the mails it
 * accepted, nothing else. smtp-server parsed every command and unescaped every body on the bench
 * process's CPU, which shares the machine with what is measured; a real SMTP server runs elsewhere
 * in production. The tests keep a parsing sink (test/messaging/messages/delivery-peers.ts), as
 * they look at the mails. One reply write per chunk read, so a pipelined MAIL/RCPT/DATA gets one.
 */
export function startCountingSmtpSink(onMail: () => void): net.Server {
  return net.createServer((socket) => {
    socket.setNoDelay(true);
    let inData = false;
    let buf = '';
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      buf += chunk.toString('latin1');
      let replies = '';
      for (;;) {
        if (inData) {
          const end = buf.indexOf('\r\n.\r\n');
          if (end < 0) {
            buf = buf.slice(-4); // a terminator may straddle two chunks
            break;
          }
          buf = buf.slice(end + 5);
          inData = false;
          onMail();
          replies += '250 OK: counted\r\n';
          continue;
        }
        const nl = buf.indexOf('\r\n');
        if (nl < 0) break;
        const verb = buf.slice(0, Math.min(nl, 4)).toUpperCase();
        buf = buf.slice(nl + 2);
        if (verb === 'EHLO') replies += '250-bench-sink\r\n250-PIPELINING\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n';
        else if (verb === 'DATA') {
          replies += '354 End data with <CR><LF>.<CR><LF>\r\n';
          inData = true;
          buf = `\r\n${buf}`; // the body's first line may be the terminator's "."
        } else if (verb === 'QUIT') {
          socket.end(`${replies}221 Bye\r\n`);
          return;
        } else replies += '250 OK\r\n'; // HELO, MAIL, RCPT, RSET, NOOP
      }
      if (replies) socket.write(replies);
    });
    socket.write('220 bench-sink ESMTP\r\n');
  });
}
