require ["fileinto", "mailbox", "imap4flags", "vacation", "envelope", "date", "relational"];

# --- mailing lists and newsletters --------------------------------------
if exists "List-Id" {
  if header :contains "List-Id" ["github.com", "gitlab.com"] {
    fileinto :create "Dev/Notifications";
    stop;
  }
  if header :contains "List-Unsubscribe" "" {
    addflag "\\Seen";
    fileinto :create "Newsletters";
    stop;
  }
}

# --- receipts and invoices ----------------------------------------------
if anyof (header :contains "subject" ["receipt", "invoice", "Rechnung", "order confirmation"],
          address :domain :is "from" ["stripe.com", "paddle.com"]) {
  fileinto :create "Receipts";
  stop;
}

# --- CI noise: keep failures in the inbox, archive the rest -------------
if address :is "from" "builds@ci.acme.example" {
  if not header :contains "subject" ["failed", "broken"] {
    addflag "\\Seen";
    fileinto :create "Archive/CI";
    stop;
  }
}

# --- vacation (uncomment and adjust dates/addresses when needed) --------
# if allof (currentdate :value "ge" "date" "2024-08-01", currentdate :value "le" "date" "2024-08-16") {
#   vacation :days 7 :addresses ["jana@mailhost.example"]
#     :subject "Away until 16 August"
#     "Thanks for your mail. I am away until 16 August with limited access to email.";
# }
