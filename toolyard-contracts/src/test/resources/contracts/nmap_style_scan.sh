#!/bin/sh
# Prints a report shaped like `nmap -sT -p 22,80,443 -oX - ADDRESS` (ToolYard test fixture, our own text).
cat <<XML
<?xml version="1.0" encoding="UTF-8"?>
<?xml-stylesheet href="file:///usr/bin/../share/nmap/nmap.xsl" type="text/xsl"?>
<!-- Nmap 7.93 scan initiated Tue Dec  1 10:00:00 2026 as: nmap -sT -p 22,80,443 -oX - $1 -->
<nmaprun scanner="nmap" args="nmap -sT -p 22,80,443 -oX - $1" start="1795946400" startstr="Tue Dec  1 10:00:00 2026" version="7.93" xmloutputversion="1.05">
<scaninfo type="connect" protocol="tcp" numservices="3" services="22,80,443"/>
<verbose level="0"/>
<debugging level="0"/>
<host starttime="1795946400" endtime="1795946401"><status state="up" reason="user-set" reason_ttl="0"/>
<address addr="$1" addrtype="ipv4"/>
<hostnames>
</hostnames>
<ports><port protocol="tcp" portid="22"><state state="open" reason="syn-ack" reason_ttl="0"/><service name="ssh" method="table" conf="3"/></port>
<port protocol="tcp" portid="80"><state state="open" reason="syn-ack" reason_ttl="0"/><service name="http" method="table" conf="3"/></port>
<port protocol="tcp" portid="443"><state state="closed" reason="conn-refused" reason_ttl="0"/><service name="https" method="table" conf="3"/></port>
</ports>
<times srtt="212" rttvar="3780" to="100000"/>
</host>
<runstats><finished time="1795946401" timestr="Tue Dec  1 10:00:01 2026" summary="Nmap done at Tue Dec  1 10:00:01 2026; 1 IP address (1 host up) scanned in 0.42 seconds" elapsed="0.42" exit="success"/><hosts up="1" down="0" total="1"/>
</runstats>
</nmaprun>
XML
