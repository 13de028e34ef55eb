# A hash comment
/* A block
   comment */
$a = 1 # trailing
# final comment
