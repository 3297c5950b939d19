import sys
print("judge: TODO", sys.argv[1:])
