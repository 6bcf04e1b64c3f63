// Slack's mrkdwn: what the products' one-line messages escape (&, < and > in text).

export const escapeSlack = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
